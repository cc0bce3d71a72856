// Shape: the inline case (rank 0-2), the heap case (rank 3 and up), and moving between them.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "core/shape.hpp"

using hfi::Shape;

TEST_CASE("shape: values, comparison and order, inline and on the heap") {
  Shape empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.begin() == empty.end());

  Shape matrix{7168, 2048};
  CHECK(matrix.size() == 2);
  CHECK(matrix[0] == 7168);
  CHECK(matrix.back() == 2048);
  CHECK(matrix == std::vector<uint64_t>{7168, 2048});

  Shape experts{256, 4096, 7168};
  CHECK(experts.size() == 3);
  CHECK(experts.front() == 256);
  CHECK(experts.back() == 7168);
  CHECK(experts == std::vector<uint64_t>{256, 4096, 7168});
  CHECK_FALSE(experts == matrix);
  CHECK(experts < matrix);  // lexicographic: 256 < 7168 decides, whatever the ranks
  CHECK(Shape{7168} < matrix);  // a prefix comes first
  CHECK_FALSE(experts < experts);

  // From a vector and from a span, as the parsers build them.
  std::vector<uint64_t> dims{1, 2, 3, 4, 5};
  Shape five(dims);
  CHECK(five.size() == 5);
  CHECK(five.to_vector() == dims);
  Shape prefix(std::span<const uint64_t>(dims.data(), 2));
  CHECK(prefix == std::vector<uint64_t>{1, 2});
}

TEST_CASE("shape: growing past two dimensions, and copies and moves of both kinds") {
  Shape s;
  for (uint64_t d = 1; d <= 9; ++d) s.push_back(d * 10);
  REQUIRE(s.size() == 9);
  for (size_t i = 0; i < 9; ++i) CHECK(s[i] == (i + 1) * 10);
  s.back() = 1;
  s.pop_back();
  CHECK(s.size() == 8);
  CHECK(s.back() == 80);

  Shape copy = s;  // heap copy: its own block
  copy[0] = 5;
  CHECK(s[0] == 10);
  Shape moved = std::move(copy);  // takes the block
  CHECK(moved.size() == 8);
  CHECK(moved[0] == 5);
  CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  copy = Shape{3, 4};  // a moved-from shape is usable again
  CHECK(copy == std::vector<uint64_t>{3, 4});

  Shape small{4096};
  small = s;  // inline target, heap source
  CHECK(small == s);
  s = Shape{1, 2};  // heap target, inline source: the block is freed
  CHECK(s == std::vector<uint64_t>{1, 2});
  s = moved;  // inline target again, heap source
  CHECK(s == moved);
  Shape& alias = s;  // self-assignment, through a reference so that clang's warning does not refuse it
  s = alias;
  CHECK(s == moved);
  std::vector<Shape> many(100, Shape{1, 2, 3});
  many.resize(1000);  // moves every element to a new buffer
  CHECK(many[99] == std::vector<uint64_t>{1, 2, 3});
  CHECK(many[999].empty());
}
