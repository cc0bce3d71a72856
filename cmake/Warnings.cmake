# Warnings are errors in our own code; third-party headers come in as SYSTEM includes.
add_library(hfinspect_warnings INTERFACE)
target_compile_options(hfinspect_warnings INTERFACE -Wall -Wextra -Werror -Wshadow -Wnon-virtual-dtor)
# GCC 12 at -O3 (Release) reports -Wrestrict inside libstdc++'s own std::string concatenation
# (GCC bug 105329, fixed in GCC 13): a false positive in a system header we cannot change.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(hfinspect_warnings INTERFACE -Wno-restrict)
endif()
