# A working package config with a variable and an imported target.
set(Fine_MESSAGE "from Fine's config")
if(NOT TARGET Fine::fine)
  add_library(Fine::fine INTERFACE IMPORTED)
endif()
