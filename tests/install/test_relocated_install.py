#!/usr/bin/env python3
"""What an installed user meets: `cmake --install` into a fresh prefix, the prefix moved
to another folder (so the place it was installed to no longer exists), and then, from a working
folder outside the source and build trees, with no TTS_VOICE_PATH, LD_LIBRARY_PATH or user voices:

- the installed `tts voices` lists the bundled voices from the moved prefix, and its search path
  names neither the source tree nor the build tree;
- the installed `tts say` speaks with the bundled `default` voice, found by name;
- programs built with `pkg-config --cflags --libs tts` against the moved prefix run without
  LD_LIBRARY_PATH (tts.pc sets the run path), list the same search path through the C API
  (examples/voices.c) and speak with `default` (examples/speak.c).

Every WAV written must be real audio: 16 kHz mono 16-bit, long enough, and far from silent. A
second install, for /usr into a DESTDIR, gets a tts.pc without a run path.

    test_relocated_install.py --build BUILD --source SOURCE --cmake CMAKE --cc CC [--sanitize=ON]
"""
import argparse
import array
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import wave


def run(args, **kwargs):
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {shlex.join(args)}\n{result.stdout}\n"
                 f"{result.stderr}")
    return result.stdout


def within(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder + os.sep)


def search_path(listing):
    """The folders under "search path:" in the output of `tts voices` or examples/voices.c."""
    folders, inside = [], False
    for line in listing.splitlines():
        if line == "search path:":
            inside = True
        elif inside and line.startswith("  "):
            folders.append(line.strip().removesuffix(" (missing)"))
        else:
            inside = False
    return folders


def check_wav(path):
    with wave.open(path, "rb") as w:
        if (w.getnchannels(), w.getsampwidth(), w.getframerate()) != (1, 2, 16000):
            sys.exit(f"{path}: {w.getnchannels()} channels, {8 * w.getsampwidth()} bits, "
                     f"{w.getframerate()} Hz; expected 16 kHz mono 16-bit")
        samples = array.array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        samples.byteswap()
    seconds = len(samples) / 16000
    peak = max((abs(s) for s in samples), default=0)
    rms = (sum(s * s for s in samples) / max(len(samples), 1)) ** 0.5
    if seconds < 0.3 or peak < 3000 or rms < 300:
        sys.exit(f"{path}: not speech: {seconds:.2f} s, peak {peak}, rms {rms:.0f}")
    return f"{os.path.basename(path)} {seconds:.2f} s, peak {peak}, rms {rms:.0f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--sanitize", default="OFF", help="ON: a sanitizer build (CMake boolean)")
    a = parser.parse_args()

    root = tempfile.mkdtemp(prefix="tts-relocated-install-")
    try:
        if within(root, a.source) or within(root, a.build):
            sys.exit(f"{root} is inside the source or build tree")
        staged = os.path.join(root, "staged")
        run([a.cmake, "--install", a.build, "--prefix", staged])
        prefix = os.path.join(root, "moved", "tts")
        os.makedirs(os.path.dirname(prefix))
        os.rename(staged, prefix)  # the folder it was installed to is gone
        pcs = glob.glob(os.path.join(prefix, "lib*", "**", "tts.pc"), recursive=True)
        if len(pcs) != 1:
            sys.exit(f"expected one tts.pc under {prefix}/lib*: {pcs}")
        pc_dir = os.path.relpath(os.path.dirname(pcs[0]), prefix)  # lib/pkgconfig, multiarch, ...
        work, home = os.path.join(root, "work"), os.path.join(root, "home")
        os.makedirs(work)
        os.makedirs(home)
        env = {k: v for k, v in os.environ.items()
               if k not in ("TTS_VOICE_PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "XDG_DATA_HOME",
                            "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR")}
        env["HOME"] = home
        env["PKG_CONFIG_PATH"] = os.path.join(prefix, pc_dir)
        tts = os.path.join(prefix, "bin", "tts")
        installed_voices = os.path.join(prefix, "share", "tts", "voices")

        def check_search_path(listing, who):
            folders = search_path(listing)
            if not folders or folders[-1] != installed_voices:
                sys.exit(f"{who}: the search path {folders} does not end with {installed_voices}\n"
                         f"{listing}")
            for folder in folders:
                if within(folder, a.source) or within(folder, a.build):
                    sys.exit(f"{who}: the search path names the source or build tree: {folder}")
            listed = [line.split() for line in listing.splitlines()
                      if line.split()[:1] == ["default"]]
            if not listed or not within(listed[0][-1], installed_voices):
                sys.exit(f"{who}: \"default\" is not listed from {installed_voices}\n{listing}")

        # The installed command.
        check_search_path(run([tts, "voices"], cwd=work, env=env), "tts voices")
        run([tts, "say", "-o", "say.wav", "--seed", "1", "Hello from the moved install."],
            cwd=work, env=env)
        report = [check_wav(os.path.join(work, "say.wav"))]

        # Programs built against the moved prefix with pkg-config, run without LD_LIBRARY_PATH.
        flags = shlex.split(run(["pkg-config", "--cflags", "--libs", "tts"], env=env))
        if not any(f.startswith("-Wl,-rpath,") for f in flags):
            sys.exit(f"tts.pc sets no run path for a prefix outside /usr: {flags}")
        sanitize = a.sanitize.upper() in ("1", "ON", "TRUE", "YES", "Y")
        san = ["-fsanitize=address,undefined"] if sanitize else []
        if sanitize and "clang" in os.path.basename(a.cc):
            # UBSan's C++ half, which libtts.so calls (the root CMakeLists.txt says why).
            san += ["-fsanitize-link-c++-runtime", "-lstdc++"]
        for program in ("voices", "speak"):
            run([a.cc, "-std=c99", "-Wall", "-Wextra", "-Werror", *san,
                 os.path.join(a.source, "examples", program + ".c"), *flags, "-o",
                 os.path.join(work, program)], cwd=work, env=env)
        check_search_path(run([os.path.join(work, "voices")], cwd=work, env=env),
                          "examples/voices.c")
        run([os.path.join(work, "speak"), "default", "Hello from the moved library.", "speak.wav"],
            cwd=work, env=env)
        report.append(check_wav(os.path.join(work, "speak.wav")))

        # A package build for /usr (DESTDIR staging): there the loader finds libtts by itself, so
        # tts.pc sets no run path.
        destdir = os.path.join(root, "destdir")
        run([a.cmake, "--install", a.build, "--prefix", "/usr"], env={**env, "DESTDIR": destdir})
        system_pc = os.path.join(destdir, "usr", pc_dir, "tts.pc")
        with open(system_pc, encoding="utf-8") as f:
            if "rpath" in f.read():
                sys.exit(f"{system_pc}: tts.pc for /usr sets a run path")
        print("relocated install speaks: " + "; ".join(report))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
