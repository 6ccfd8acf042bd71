# The man pages and the bash completion of the tts command, made at build time from the command's
# own --help (packaging/make-man-pages with help2man, packaging/make-bash-completion), so they
# describe the command that was built. Both are part of a full build; ./scripts/say builds the
# command alone and neither.
include(GNUInstallDirs)
if(CMAKE_CROSSCOMPILING OR NOT Python3_Interpreter_FOUND)
  message(STATUS "tts: no man pages or completion (cross-compiling, or no Python 3)")
  return()
endif()

set(TTS_COMPLETION ${PROJECT_BINARY_DIR}/completion/tts)
add_custom_command(OUTPUT ${TTS_COMPLETION}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/packaging/make-bash-completion
    --tts $<TARGET_FILE:tts> --out ${TTS_COMPLETION}
  DEPENDS tts tts-train ${PROJECT_SOURCE_DIR}/packaging/make-bash-completion
    ${PROJECT_SOURCE_DIR}/packaging/cli_help.py
  COMMENT "Bash completion of tts, from its --help")
add_custom_target(tts_bash_completion ALL DEPENDS ${TTS_COMPLETION})
install(FILES ${TTS_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  OPTIONAL)

find_program(TTS_HELP2MAN help2man)
if(TTS_HELP2MAN)
  set(TTS_MAN_STAMP ${PROJECT_BINARY_DIR}/man/man1.stamp)
  add_custom_command(OUTPUT ${TTS_MAN_STAMP}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/packaging/make-man-pages
      --tts $<TARGET_FILE:tts> --version ${PROJECT_VERSION} --help2man ${TTS_HELP2MAN}
      --out ${PROJECT_BINARY_DIR}/man/man1
    COMMAND ${CMAKE_COMMAND} -E touch ${TTS_MAN_STAMP}
    DEPENDS tts tts-train ${PROJECT_SOURCE_DIR}/packaging/make-man-pages
      ${PROJECT_SOURCE_DIR}/packaging/cli_help.py
    COMMENT "Man pages of tts and its subcommands, from their --help (help2man)")
  add_custom_target(tts_man_pages ALL DEPENDS ${TTS_MAN_STAMP})
  # OPTIONAL: an install from a build of the command alone (./scripts/say) has none.
  # The pages of `tts train` and its subcommands go with the trainer (the tts-train package).
  install(DIRECTORY ${PROJECT_BINARY_DIR}/man/man1 DESTINATION ${CMAKE_INSTALL_MANDIR}
    OPTIONAL FILES_MATCHING PATTERN "*.1.gz" PATTERN "tts-train*" EXCLUDE)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/man/man1 DESTINATION ${CMAKE_INSTALL_MANDIR}
    COMPONENT train OPTIONAL FILES_MATCHING PATTERN "tts-train*.1.gz")
else()
  message(STATUS "tts: help2man not found: no man pages (scripts/install-deps package installs it)")
endif()

if(TTS_BUILD_TESTS)
  # The completion under bash-completion's own loader, against the command built here.
  add_test(NAME bash_completion COMMAND ${PROJECT_SOURCE_DIR}/tests/package/test-bash-completion
    ${TTS_COMPLETION} $<TARGET_FILE_DIR:tts>)
  set_tests_properties(bash_completion PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
endif()
