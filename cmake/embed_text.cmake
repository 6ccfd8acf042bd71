# Writes a C++ source that holds a text file as one string, so the file ships inside the binary:
#   cmake -DINPUT=page.html -DOUTPUT=page.cpp -DNAMESPACE=tts::serve -DNAME=web_page_html -P embed_text.cmake
# defines `extern const char NAME[]` (NUL-terminated) and `extern const std::size_t NAME_size`
# in NAMESPACE. The text goes into a raw string literal, so it is kept byte for byte.
foreach(var INPUT OUTPUT NAMESPACE NAME)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${INPUT}" text)
set(delimiter "embedded")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "embed_text.cmake: ${INPUT} contains the literal's end, )${delimiter}\"")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Made from ${INPUT} by cmake/embed_text.cmake; edit that file instead.\n"
  "#include <cstddef>\n\n"
  "namespace ${NAMESPACE} {\n"
  "extern const char ${NAME}[];\n"
  "extern const std::size_t ${NAME}_size;\n"
  "const char ${NAME}[] = R\"${delimiter}(${text})${delimiter}\";\n"
  "const std::size_t ${NAME}_size = sizeof(${NAME}) - 1;\n"
  "}  // namespace ${NAMESPACE}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
