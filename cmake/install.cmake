# Installing the C library (libtts, tts.h, CMake package and pkg-config files) and the bundled
# voices; the example program built against libtts in this tree; and the tests that install into a
# temporary prefix and build against the installed copy.
# The example program built in this tree against libtts, as a user would build it.
add_executable(tts_example_speak examples/speak.c)
target_link_libraries(tts_example_speak PRIVATE tts_shared)
set_target_properties(tts_example_speak PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF
  OUTPUT_NAME tts-example-speak RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/examples)

include(CMakePackageConfigHelpers)
include(GNUInstallDirs)
# Components (cmake/package.cmake makes a Debian package of each): the library itself (libs,
# libtts0); what building against it needs (dev, libtts-dev: the header, the .so link, the CMake
# package, tts.pc); the voices (voices, tts-voices).
install(TARGETS tts_shared EXPORT ttsTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libs NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT libs)
install(FILES engine/include/tts/tts.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tts COMPONENT dev)
install(EXPORT ttsTargets NAMESPACE tts:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tts
  COMPONENT dev)
file(WRITE ${PROJECT_BINARY_DIR}/ttsConfig.cmake.in
  "@PACKAGE_INIT@\ninclude(\"\${CMAKE_CURRENT_LIST_DIR}/ttsTargets.cmake\")\ncheck_required_components(tts)\n")
configure_package_config_file(${PROJECT_BINARY_DIR}/ttsConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ttsConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tts)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ttsConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ttsConfig.cmake ${PROJECT_BINARY_DIR}/ttsConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tts COMPONENT dev)
# pkg-config: the prefix is found from the .pc file's own place, so the tree can be relocated.
# Outside /usr the dynamic loader does not look in the prefix's libdir, so there Libs also sets
# the run path (-Wl,-rpath): a program built with `pkg-config --libs tts` runs without
# LD_LIBRARY_PATH. Which of the two files is installed is decided by the prefix given at install
# time (`cmake --install --prefix`), not at configure time.
file(RELATIVE_PATH TTS_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" TTS_PC_TO_PREFIX "/${TTS_PC_TO_PREFIX}")
foreach(variant rpath system)
  set(TTS_PC_LIBS "-L\${libdir} -Wl,-rpath,\${libdir} -ltts")
  if(variant STREQUAL "system")
    set(TTS_PC_LIBS "-L\${libdir} -ltts")
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/pkgconfig-${variant}/tts.pc
    "prefix=\${pcfiledir}${TTS_PC_TO_PREFIX}\nlibdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}\n"
    "includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}\n\n"
    "Name: tts\nDescription: Text-to-speech with a WaveNet vocoder (C API)\n"
    "Version: ${PROJECT_VERSION}\nLibs: ${TTS_PC_LIBS}\nCflags: -I\${includedir}\n")
endforeach()
install(CODE "
  string(REGEX REPLACE \"/+$\" \"\" tts_prefix \"\${CMAKE_INSTALL_PREFIX}\")
  set(tts_pc \"${PROJECT_BINARY_DIR}/pkgconfig-rpath/tts.pc\")
  if(tts_prefix STREQUAL \"/usr\" OR tts_prefix STREQUAL \"\")
    set(tts_pc \"${PROJECT_BINARY_DIR}/pkgconfig-system/tts.pc\")
  endif()
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\"
    TYPE FILE FILES \"\${tts_pc}\")" COMPONENT dev)
# The bundled voices, where an installed tts looks for them (<prefix>/share/tts/voices).
install(DIRECTORY voices/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tts/voices COMPONENT voices
  PATTERN README.md EXCLUDE)

# The prompts a person reads to record a voice (<prefix>/share/tts/prompts/LANG.txt).
install(DIRECTORY voice_creation/prompts/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tts/prompts
  FILES_MATCHING PATTERN "*.txt")

if(TTS_BUILD_TESTS)
  # Installs into a temporary prefix, builds examples/ against the installed copy with
  # find_package and with pkg-config, and runs both on a random voice.
  add_test(NAME c_api_install COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DC_COMPILER=${CMAKE_C_COMPILER} -DSANITIZE=${TTS_SANITIZE}
    -P ${PROJECT_SOURCE_DIR}/examples/install_test.cmake)
  set_tests_properties(c_api_install PROPERTIES TIMEOUT 300)
  # An install moved to another folder speaks with its own voices, from outside the source tree,
  # and programs built with its tts.pc run without LD_LIBRARY_PATH.
  add_test(NAME install_relocated COMMAND /usr/bin/python3
    ${PROJECT_SOURCE_DIR}/tests/install/test_relocated_install.py --build ${PROJECT_BINARY_DIR}
    --source ${PROJECT_SOURCE_DIR} --cmake ${CMAKE_COMMAND} --cc ${CMAKE_C_COMPILER}
    --sanitize=${TTS_SANITIZE})
  set_tests_properties(install_relocated PROPERTIES TIMEOUT 600)  # ASan builds: minutes
endif()

