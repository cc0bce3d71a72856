# Warnings are errors in our own code; third-party headers come in as SYSTEM includes.
add_library(hfinspect_warnings INTERFACE)
target_compile_options(hfinspect_warnings INTERFACE -Wall -Wextra -Werror -Wshadow -Wnon-virtual-dtor)
