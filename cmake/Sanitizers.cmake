# -DHFINSPECT_SANITIZE=ON: ASan + UBSan for every target, failing hard on the first report.
if(HFINSPECT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # For the few timing checks that allow for a sanitizer's slowdown; gcc and clang spell their own
  # markers differently.
  add_compile_definitions(HFINSPECT_UNDER_ASAN=1)
endif()

# -DHFINSPECT_TSAN=ON: ThreadSanitizer for every target. It cannot share a process with ASan, which
# both other options bring in.
if(HFINSPECT_TSAN)
  if(HFINSPECT_SANITIZE OR HFINSPECT_FUZZ)
    message(FATAL_ERROR "HFINSPECT_TSAN excludes HFINSPECT_SANITIZE and HFINSPECT_FUZZ (ASan)")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  add_compile_definitions(HFINSPECT_UNDER_TSAN=1)
endif()

# -DHFINSPECT_FUZZ=ON (clang only): instrument everything for libFuzzer, with ASan and UBSan.
if(HFINSPECT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "HFINSPECT_FUZZ needs clang++ (libFuzzer)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(HFINSPECT_UNDER_ASAN=1)
endif()
