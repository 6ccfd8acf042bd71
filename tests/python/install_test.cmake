# CTest script (python_package_install, registered by python/CMakeLists.txt): installs the build
# into a temporary prefix, moves the prefix elsewhere, and imports the installed package from there
# with no TTS_LIBRARY set: it must find the installed libtts through its _paths.py, load the
# installed voice and speak. Inputs: BUILD_DIR, SOURCE_DIR, PYTHON, PYTHON_DIR.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}${err}")
endfunction()

string(RANDOM LENGTH 8 tag)
set(work "${BUILD_DIR}/python-install-test-${tag}")
file(REMOVE_RECURSE "${work}")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${work}/prefix")
foreach(f __init__.py _capi.py _paths.py)
  if(NOT EXISTS "${work}/prefix/${PYTHON_DIR}/tts/${f}")
    message(FATAL_ERROR "not installed: ${PYTHON_DIR}/tts/${f}")
  endif()
endforeach()
file(RENAME "${work}/prefix" "${work}/moved")
set(moved "${work}/moved")

set(check [=[
import os, sys, tts
moved = os.path.realpath(sys.argv[1])
assert os.path.realpath(tts.__file__).startswith(moved + os.sep), tts.__file__
lib = os.path.realpath(tts._capi.lib._name)
assert lib.startswith(moved + os.sep), "loaded " + lib + ", not the installed library"
with tts.Voice.load(os.path.join(moved, "share/tts/voices/default")) as voice:
    n = voice.synthesize_wav("Installed.", os.path.join(moved, "installed.wav"), seed=1)
    assert n > 1000, n
if tts._capi.HAVE_VOICE_LIST:  # the installed voices, found from where the installed libtts is
    installed = [v for v in tts.list_voices() if v.name == "default"]
    assert installed and os.path.realpath(installed[0].path).startswith(moved + os.sep), installed
    with tts.Voice.load("default") as voice:
        assert os.path.realpath(voice.info.path).startswith(moved + os.sep), voice.info.path
print("installed package: %s, library %s, %d samples" % (tts.__file__, lib, n))
]=])
# No voices but the installed ones: no TTS_VOICE_PATH, an empty XDG_DATA_HOME.
file(MAKE_DIRECTORY "${work}/xdg")
run(${CMAKE_COMMAND} -E env --unset=TTS_LIBRARY --unset=TTS_VOICE_PATH "XDG_DATA_HOME=${work}/xdg"
    "PYTHONPATH=${moved}/${PYTHON_DIR}" ${PYTHON} -c "${check}" "${moved}")
file(REMOVE_RECURSE "${work}")
