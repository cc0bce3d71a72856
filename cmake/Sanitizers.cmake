# -DHFINSPECT_SANITIZE=ON: ASan + UBSan for every target, failing hard on the first report.
if(HFINSPECT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
