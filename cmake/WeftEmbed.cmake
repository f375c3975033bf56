# weft_embed(TARGET <target> FUNCTION <name> FILES <file>...): compiles the files' contents
# into <target> as `const std::vector<weft::EmbeddedFile>& weft::embedded::<name>()` (file
# names without their folder, in the order given; hardware/isa/embedded.h declares the type),
# so that the binary carries them and works from any directory. The source is regenerated when
# a file changes.
function(weft_embed)
  cmake_parse_arguments(E "" "TARGET;FUNCTION" "FILES" ${ARGN})
  set(_WEFT_EMBED_SCRIPT ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/WeftEmbedWrite.cmake)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${E_FUNCTION}.cc)
  string(REPLACE ";" "|" files "${E_FILES}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DFUNCTION=${E_FUNCTION} "-DFILES=${files}"
            -P ${_WEFT_EMBED_SCRIPT}
    DEPENDS ${E_FILES} ${_WEFT_EMBED_SCRIPT}
    COMMENT "Embedding ${E_FUNCTION} (${CMAKE_CURRENT_SOURCE_DIR})"
    VERBATIM)
  target_sources(${E_TARGET} PRIVATE ${out})
endfunction()
