# Harmonicity and pitch of a list of sound files, for tools/quality-report (praat.py runs it):
#
#   praat --run tools/quality/praat_voice.praat LIST.txt
#
# LIST.txt: one sound file path a line. For each file, one line on stdout, fields separated by tabs:
#
#   file  PATH  HNR_VOICED  HNR_SUM  HNR_FRAMES  PITCH_FRAMES  F0 F0 F0 ...
#
# HNR_VOICED: frames of To Harmonicity (cc): 0.01, 75, 0.1, 1.0 with a value above -200 dB (Praat's
# mark for a frame without periodicity), HNR_SUM the sum of their dB values, HNR_FRAMES all its
# frames; PITCH_FRAMES all frames of To Pitch: 0.01, 75, 500 and then, separated by spaces, the F0
# in Hz of each of its voiced frames, in time order. A file shorter than 0.1 s gets the line
#
#   short  PATH  SECONDS
#
# instead. A file that Praat cannot read stops the script with an error (praat.py then measures
# that batch's files one by one to find it).

form Harmonicity and pitch of a list of sound files
    sentence List_file
endform

list = Read Strings from raw text file: list_file$
n = Get number of strings
for ifile to n
    selectObject: list
    path$ = Get string: ifile
    if path$ <> ""
        sound = Read from file: path$
        channels = Get number of channels
        if channels > 1
            mono = Convert to mono
            removeObject: sound
            sound = mono
        endif
        duration = Get total duration
        if duration < 0.1
            # too short for a pitch analysis with a 75 Hz floor (Praat would stop with an error)
            appendInfoLine: "short", tab$, path$, tab$, fixed$(duration, 4)
        else
            selectObject: sound
            harmonicity = To Harmonicity (cc): 0.01, 75, 0.1, 1.0
            hnr_frames = Get number of frames
            hnr_voiced = 0
            hnr_sum = 0
            for i to hnr_frames
                value = Get value in frame: i
                if value <> undefined and value > -200
                    hnr_voiced += 1
                    hnr_sum += value
                endif
            endfor

            selectObject: sound
            pitch = To Pitch: 0.01, 75, 500
            pitch_frames = Get number of frames
            appendInfo: "file", tab$, path$, tab$, hnr_voiced, tab$, fixed$(hnr_sum, 4), tab$,
            ... hnr_frames, tab$, pitch_frames, tab$
            for i to pitch_frames
                f0 = Get value in frame: i, "Hertz"
                if f0 <> undefined
                    appendInfo: fixed$(f0, 3), " "
                endif
            endfor
            appendInfoLine: ""
            removeObject: harmonicity, pitch
        endif
        removeObject: sound
    endif
endfor
removeObject: list
