# Debian packages, made by CPack (scripts/package; tests/package/check-package checks them):
#   tts       the command, libtts with its header, tts.pc and CMake package, the voices, the Python
#             package, sd_tts and its Speech Dispatcher config, the man pages, the bash completion
#             and tts-serve.service with /etc/default/tts-serve (installed, not enabled)
#   tts-cuda  libtts_cuda.so, the CUDA backend, where it was built; it alone needs CUDA's libraries
# Each package's Depends comes from the libraries its binaries link (dpkg-shlibdeps). The build must
# be configured with CMAKE_INSTALL_PREFIX=/usr: the library and the command look for the CUDA
# backend and the voices where that prefix puts them.
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
foreach(package tts tts-cuda)
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
  set(component tts)
  if(package STREQUAL "tts-cuda")
    set(component cuda)
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
set(CPACK_COMPONENTS_ALL tts)
if(TARGET tts_cuda)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tts_VERSION_ARCH.deb
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)  # libtts.so.0's shlibs, for programs built against it
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_TTS_PACKAGE_NAME tts)
# The one dependency no binary names: the Python package is Python source (dh_python3 would add it).
set(CPACK_DEBIAN_TTS_PACKAGE_DEPENDS "python3, procps")
set(CPACK_DEBIAN_TTS_PACKAGE_SUGGESTS speech-dispatcher)
set(CPACK_DEBIAN_TTS_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/packaging/conffiles ${PROJECT_SOURCE_DIR}/packaging/triggers)
set(CPACK_DEBIAN_TTS_DESCRIPTION "speech synthesis with a WaveNet voice
Text goes through a frontend (normalisation, phonemes from libespeak-ng)
and an acoustic model into a WaveNet vocoder that makes the audio on the
CPU, streaming as it is made. This package has the tts command (say,
voices, serve, training), the library libtts with its C header, the
Python package tts, the Speech Dispatcher module sd_tts, the bundled
voices (English, English with Mexican Spanish, Mexican Spanish,
Canadian French, Italian, Russian) and the systemd service tts-serve
(OpenAI's speech API over HTTP and the Wyoming protocol, on 127.0.0.1),
installed but not enabled.")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME tts-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "tts (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_DESCRIPTION "speech synthesis with a WaveNet voice - CUDA backend
The CUDA backend of tts (libtts_cuda.so), loaded on the first use of an
NVIDIA GPU (tts say --device cuda, tts devices). It needs NVIDIA's
driver and the CUDA libraries it was built with (cuBLAS, cuDNN) on the
dynamic loader's path.")

include(CPack)
