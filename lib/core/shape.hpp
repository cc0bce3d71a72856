// A tensor shape, the size of a std::vector<uint64_t> (24 bytes). Up to two dimensions live inside
// the object: every weight matrix, bias and norm. More go to the heap, as a vector's would. A
// vector apiece cost DeepSeek-V3 about 185k heap blocks: its 92k stored tensors, their logical
// weights and the architecture's expected tensors, all of rank 1 or 2.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace hfi {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<uint64_t> dims) { assign(dims.begin(), dims.end()); }
  // Implicit: shapes are built as vectors or spans in many places.
  Shape(std::span<const uint64_t> dims) { assign(dims.begin(), dims.end()); }     // NOLINT(google-explicit-constructor)
  Shape(const std::vector<uint64_t>& dims) { assign(dims.begin(), dims.end()); }  // NOLINT(google-explicit-constructor)
  template <typename It>
  Shape(It first, It last) {
    assign(first, last);
  }
  Shape(const Shape& other) { assign(other.begin(), other.end()); }
  Shape(Shape&& other) noexcept { steal(other); }
  Shape& operator=(const Shape& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  Shape& operator=(Shape&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~Shape() { release(); }

  template <typename It>
  void assign(It first, It last) {
    auto n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    if (n > capacity_) grow(n);
    uint64_t* out = data();
    for (; first != last; ++first) out[size_++] = static_cast<uint64_t>(*first);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint64_t* data() { return on_heap() ? heap_ : inline_; }
  const uint64_t* data() const { return on_heap() ? heap_ : inline_; }
  uint64_t* begin() { return data(); }
  uint64_t* end() { return data() + size_; }
  const uint64_t* begin() const { return data(); }
  const uint64_t* end() const { return data() + size_; }
  uint64_t& operator[](size_t i) { return data()[i]; }
  uint64_t operator[](size_t i) const { return data()[i]; }
  uint64_t& front() { return data()[0]; }
  uint64_t front() const { return data()[0]; }
  uint64_t& back() { return data()[size_ - 1]; }
  uint64_t back() const { return data()[size_ - 1]; }

  void push_back(uint64_t d) {
    if (size_ == capacity_) grow(2 * static_cast<size_t>(capacity_));
    data()[size_++] = d;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  std::vector<uint64_t> to_vector() const { return {begin(), end()}; }

  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend bool operator==(const Shape& a, const std::vector<uint64_t>& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend bool operator<(const Shape& a, const Shape& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr uint32_t kInline = 2;
  bool on_heap() const { return capacity_ > kInline; }
  // Room for at least `n` values; the ones held so far are kept.
  void grow(size_t n) {
    auto* bigger = new uint64_t[n];
    std::copy(begin(), end(), bigger);
    release();
    heap_ = bigger;
    capacity_ = static_cast<uint32_t>(n);
  }
  void release() {
    if (on_heap()) delete[] heap_;
    capacity_ = kInline;
  }
  // Takes `other`'s values (its heap block, if any), leaving it empty; this one holds nothing.
  void steal(Shape& other) {
    size_ = other.size_;
    capacity_ = other.capacity_;
    if (other.on_heap()) heap_ = other.heap_;
    else std::copy(other.inline_, other.inline_ + other.size_, inline_);
    other.capacity_ = kInline;
    other.size_ = 0;
  }

  union {
    uint64_t inline_[kInline] = {};
    uint64_t* heap_;
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
};

static_assert(sizeof(Shape) == sizeof(std::vector<uint64_t>), "a shape is no larger than the vector it replaces");

// "[4096, 128]", as reports and error messages write a shape.
inline std::string shape_text(std::span<const uint64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace hfi
