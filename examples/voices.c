/* voices: lists the voices libtts finds and the folders it searches, through its C API.
 *
 *   voices
 *
 * Prints "search path:" with one folder a line (in the order they are searched), then "voices:"
 * with one voice a line: the name tts_voice_load takes, language, sample rate, size and folder.
 * Exits 1 when no voice is found. Build it like speak.c:
 * cc voices.c $(pkg-config --cflags --libs tts) -o voices. */
#include <stdio.h>
#include <string.h>
#include <tts/tts.h>

int main(void) {
  tts_voice_list* list = NULL;
  tts_voice_info info;
  size_t i;
  int rc = tts_voice_list_create(&list);
  if (rc != TTS_OK) {
    fprintf(stderr, "voices: %s: %s\n", tts_strerror(rc), tts_last_error());
    return 2;
  }
  printf("search path:\n");
  for (i = 0; i < tts_voice_list_search_path_count(list); ++i)
    printf("  %s\n", tts_voice_list_search_path(list, i));
  printf("voices:\n");
  for (i = 0; i < tts_voice_list_count(list); ++i) {
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    rc = tts_voice_list_get(list, i, &info);
    if (rc == TTS_OK)
      printf("  %-16s %-8s %6d %10llu  %s\n", info.name, info.language, info.sample_rate,
             (unsigned long long)info.size_bytes, info.path);
    else
      printf("  %-16s (unusable: %s)  %s\n", info.name, tts_last_error(), info.path);
  }
  rc = tts_voice_list_count(list) > 0 ? 0 : 1;
  tts_voice_list_free(list);
  return rc;
}
