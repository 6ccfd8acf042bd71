# Shifts the pitch of wav files by a number of semitones with Praat's PSOLA (overlap-add
# resynthesis of a Manipulation), which keeps the spectral envelope, and so the formants and the
# speaker's timbre, while the harmonics move. Used by pitch_shifted_corpus.py.
#
#   praat --run pitch_shift.praat LIST_FILE IN_DIR OUT_DIR SEMITONES MIN_HZ MAX_HZ
#
# LIST_FILE holds one file name per line (relative to IN_DIR); each is written under the same
# name to OUT_DIR. A line "done NAME" goes to stdout per file, so that the caller can tell a
# crash from a finished batch.
form Pitch shift
  sentence list_file
  sentence in_dir
  sentence out_dir
  real semitones
  positive min_hz
  positive max_hz
endform

names = Read Strings from raw text file: list_file$
n = Get number of strings
for i to n
  selectObject: names
  name$ = Get string: i
  sound = Read from file: in_dir$ + "/" + name$
  manipulation = To Manipulation: 0.01, min_hz, max_hz
  tier = Extract pitch tier
  Shift frequencies: 0, 1e6, semitones, "semitones"
  plusObject: manipulation
  Replace pitch tier
  selectObject: manipulation
  shifted = Get resynthesis (overlap-add)
  Save as WAV file: out_dir$ + "/" + name$
  writeInfoLine: "done ", name$
  removeObject: sound, manipulation, tier, shifted
endfor
removeObject: names
