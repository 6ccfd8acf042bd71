# Debian packages, made by CPack (scripts/package; tests/package/check-package checks them), split
# by use so that a machine that only speaks installs no trainer and no MPI:
#   tts         the command (say, voices, serve, ...), sd_tts and its Speech Dispatcher config, the
#               Python package, the man pages, the bash completion, the recording prompts and
#               tts-serve.service with /etc/default/tts-serve (installed, not enabled)
#   libtts0     libtts.so.0, the library the command's Python package, sd_tts and C programs load
#   libtts-dev  the C header, the .so link, tts.pc and the CMake package
#   tts-voices  the bundled voices (architecture: all)
#   tts-train   the trainer, tts-train, which `tts train` runs; it alone links MPI
#   tts-cuda    libtts_cuda.so, the CUDA backend, where it was built; it alone needs CUDA's libraries
# Each package's Depends comes from the libraries its binaries link (dpkg-shlibdeps), plus the
# packages of this tree it needs, at this version. The build must be configured with
# CMAKE_INSTALL_PREFIX=/usr: the library and the command look for the CUDA backend and the voices
# where that prefix puts them.
include(GNUInstallDirs)

# Files of the packages alone: a `cmake --install` into a prefix leaves them out (EXCLUDE_FROM_ALL),
# CPack's install of each component takes them.
install(FILES packaging/tts-serve.service DESTINATION lib/systemd/system
  COMPONENT tts EXCLUDE_FROM_ALL)
install(FILES packaging/tts-serve.default DESTINATION /etc/default RENAME tts-serve
  COMPONENT tts EXCLUDE_FROM_ALL)

# Each package's copyright and (native package) changelog, in the format Debian's tools read.
string(TIMESTAMP tts_package_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(TTS_PACKAGE_MAINTAINER "tts maintainers <maintainers@users.noreply.a-seed-da53ed32.example>"
  CACHE STRING "The Maintainer field of the Debian packages")
set(tts_package_components tts libs dev voices train)
set(tts_package_names tts libtts0 libtts-dev tts-voices tts-train)
if(TARGET tts_cuda)
  list(APPEND tts_package_components cuda)
  list(APPEND tts_package_names tts-cuda)
endif()
foreach(component package IN ZIP_LISTS tts_package_components tts_package_names)
  set(doc ${PROJECT_BINARY_DIR}/package-doc/${package})
  file(WRITE ${doc}/changelog
    "${package} (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
    "  * Built from the tts source tree, version ${PROJECT_VERSION}: CHANGELOG.md in the\n"
    "    source tree lists the changes.\n\n"
    " -- ${TTS_PACKAGE_MAINTAINER}  ${tts_package_date}\n")
  execute_process(COMMAND gzip -9nf ${doc}/changelog RESULT_VARIABLE gzip_status)
  if(NOT gzip_status EQUAL 0)
    message(FATAL_ERROR "gzip failed on ${doc}/changelog")
  endif()
  install(FILES ${doc}/changelog.gz packaging/copyright
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tts)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the tts authors")
set(CPACK_PACKAGE_CONTACT "${TTS_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${tts_package_components})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tts_VERSION_ARCH.deb
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# The summary line every package's description starts with, then what the package holds.
set(tts_summary "speech synthesis with a WaveNet voice")
set(tts_about "tts turns text into speech on the CPU (or an NVIDIA GPU): a frontend
(normalisation, phonemes from libespeak-ng) and an acoustic model feed a
WaveNet vocoder that makes the audio as it streams out.")

set(CPACK_DEBIAN_TTS_PACKAGE_NAME tts)
# The Python package is Python source (dh_python3 would add python3) and loads libtts0; the unit's
# ExecReload runs /bin/kill (procps); the command speaks with the bundled voices.
set(CPACK_DEBIAN_TTS_PACKAGE_DEPENDS
  "python3, procps, libtts0 (= ${PROJECT_VERSION}), tts-voices (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_TTS_PACKAGE_RECOMMENDS bash-completion)
set(CPACK_DEBIAN_TTS_PACKAGE_SUGGESTS "speech-dispatcher, tts-train")
set(CPACK_DEBIAN_TTS_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/tts-control/conffiles
  ${PROJECT_SOURCE_DIR}/packaging/tts-control/prerm)
set(CPACK_DEBIAN_TTS_DESCRIPTION "${tts_summary}
${tts_about}
This package has the tts command (say, voices, serve, bench), the Python
package tts, the Speech Dispatcher module sd_tts and the systemd service
tts-serve (OpenAI's speech API over HTTP and the Wyoming protocol, on
127.0.0.1), installed but not enabled. Training (tts train) is in
tts-train.")

set(CPACK_DEBIAN_LIBS_PACKAGE_NAME libtts0)
set(CPACK_DEBIAN_LIBS_PACKAGE_SECTION libs)
# libtts0's shlibs (for programs built against it) and its ldconfig trigger are written by
# cmake/package_libs.cmake at packaging time, not by CPack, whose maintainer scripts would call
# ldconfig themselves.
set(CPACK_DEBIAN_LIBS_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_LIBS_DESCRIPTION "${tts_summary} - library
${tts_about}
This package has the shared library libtts, which programs that speak
through tts's C API load (the Python package, sd_tts, your own). The
voices are in tts-voices.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libtts-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libtts0 (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEV_DESCRIPTION "${tts_summary} - development files
${tts_about}
This package has what building a program against libtts needs: the C
header tts/tts.h, the libtts.so link, tts.pc for pkg-config and the CMake
package (find_package(tts)).")

set(CPACK_DEBIAN_VOICES_PACKAGE_NAME tts-voices)
set(CPACK_DEBIAN_VOICES_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_VOICES_DESCRIPTION "${tts_summary} - bundled voices
${tts_about}
This package has the bundled voices: English, English with Mexican
Spanish, Mexican Spanish, Canadian French, Italian and Russian.")

set(CPACK_DEBIAN_TRAIN_PACKAGE_NAME tts-train)
set(CPACK_DEBIAN_TRAIN_PACKAGE_DEPENDS "tts (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_TRAIN_DESCRIPTION "${tts_summary} - trainer
${tts_about}
This package has the trainer, tts-train, which tts train runs: the
acoustic model and the WaveNet vocoder trained from recordings, data
parallel over MPI (mpirun -np N tts train ...).")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME tts-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "libtts0 (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_DESCRIPTION "${tts_summary} - CUDA backend
${tts_about}
This package has the CUDA backend of tts (libtts_cuda.so), loaded on the
first use of an NVIDIA GPU (tts say --device cuda, tts devices). It needs
NVIDIA's driver and the CUDA libraries it was built with (cuBLAS, cuDNN)
on the dynamic loader's path.")

set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/package_libs.cmake)
configure_file(${PROJECT_SOURCE_DIR}/cmake/package_libs.cmake.in
  ${PROJECT_BINARY_DIR}/package_libs.cmake.configured @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/package_libs.cmake
  INPUT ${PROJECT_BINARY_DIR}/package_libs.cmake.configured)

include(CPack)
