# cmake -DBINARY=path/to/hfinspect -DOUT=dir -P WriteCliDocs.cmake: writes OUT/hfinspect.1 and the
# shell completions under OUT/completions, each printed by the binary (app/completion.hpp).

# In a sanitizer build the binary is instrumented too. What it prints is all that is wanted here:
# leaks are the tests' business, and LeakSanitizer's exit-time scan could fail the build where
# ptrace is restricted.
set(ENV{ASAN_OPTIONS} "detect_leaks=0:$ENV{ASAN_OPTIONS}")

function(write_from_binary file)
  execute_process(COMMAND ${BINARY} ${ARGN} OUTPUT_FILE ${OUT}/${file}.part ERROR_VARIABLE errors RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${BINARY} ${ARGN} failed (${code}): ${errors}")
  endif()
  file(RENAME ${OUT}/${file}.part ${OUT}/${file})
endfunction()

file(MAKE_DIRECTORY ${OUT}/completions)
write_from_binary(hfinspect.1 completion --man-page)
write_from_binary(completions/hfinspect.bash completion bash)
write_from_binary(completions/_hfinspect completion zsh)
write_from_binary(completions/hfinspect.fish completion fish)
