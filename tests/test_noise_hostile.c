/* The noise-floor JSON reader (compare --noise) against hostile files:
 * 100 000 keys and cases, and files shaped to make it hold more memory
 * than the text. Each test failed before its fix (the note above it says
 * how). */
#include "benchsite/noise.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(noise_hostile, .fini = ts_free_owned);

/* ---- Quadratic work ------------------------------------------------------ *
 * Before: each JSON key was compared with every earlier key of its object
 * and each noise case with every earlier case. The timeout is far above
 * the linear time (well under a second) and far below the quadratic one. */

Test(noise_hostile, noise_json_of_100000_keys_and_cases_parses_in_linear_time,
     .timeout = 60) {
  size_t n = 100000;
  char *text = malloc(n * 140 + 200);
  cr_assert_not_null(text);
  size_t k = (size_t)sprintf(text, "{\"schema\":\"benchsite.noise/1\",\"x\":{");
  for (size_t i = 0; i < n; i++)
    k += (size_t)sprintf(text + k, "%s\"k%zu\":1", i ? "," : "", i);
  k += (size_t)sprintf(text + k, "},\"cases\":[");
  for (size_t i = 0; i < n; i++)
    k += (size_t)sprintf(text + k,
                         "%s{\"benchmark\":\"b%zu\",\"dataset\":\"\","
                         "\"paired_deltas_pct\":[0.5,0.5],"
                         "\"paired_noise_floor_pct\":0.5}",
                         i ? "," : "", i);
  k += (size_t)sprintf(text + k, "]}");
  bs_noise_floors *fl = NULL;
  bs_error err;
  cr_assert_eq(bs_noise_floors_parse("n.json", text, k, &fl, &err), BS_OK, "%s",
               err.message);
  cr_expect_eq(bs_noise_floors_count(fl), n);
  double pct = 0;
  cr_expect(bs_noise_floors_lookup(fl, "b99999", "", &pct));
  cr_expect_eq(pct, 0.5);
  cr_expect(!bs_noise_floors_lookup(fl, "b100000", "", &pct));
  bs_noise_floors_free(fl);
  /* A repeated case is still refused, naming the first. */
  k = (size_t)sprintf(text, "{\"schema\":\"benchsite.noise/1\",\"cases\":[");
  for (size_t i = 0; i < 3; i++)
    k += (size_t)sprintf(text + k,
                         "%s{\"benchmark\":\"b\",\"dataset\":\"\\n::x\","
                         "\"paired_deltas_pct\":[0.5,0.5],"
                         "\"paired_noise_floor_pct\":0.5}",
                         i ? "," : "");
  k += (size_t)sprintf(text + k, "]}");
  cr_expect_eq(bs_noise_floors_parse("n.json", text, k, &fl, &err), BS_EINPUT);
  cr_expect(strstr(err.message, "case 2 repeats"), "%s", err.message);
  cr_expect(!strchr(err.message, '\n'), "%s", err.message);
  free(text);
}

/* Before: the noise JSON reader held ~37 bytes per input byte, then ~17
 * (a 16 MB file: 280 MB; issue 23). It now reads case by case and keeps
 * only the floors: well under 2 bytes per input byte for a file shaped as
 * `noise` writes it (nearly all experiments), for 8 MiB of numbers it
 * drops, and for 8 MiB of paired deltas in one case (refused when what it
 * would keep outgrows the text). Measured in a child's peak RSS; not under
 * ASan, whose shadow memory and quarantine change the figure. */
static size_t fake_noise_file(char *text, size_t n, int kind) {
  size_t k = 0;
  if (kind == 0) { /* a dense array under an unknown key */
    k = (size_t)sprintf(text, "{\"x\":[");
    while (k < n)
      text[k++] = '1', text[k++] = ',';
    k += (size_t)sprintf(text + k, "1]}");
  } else if (kind == 1) { /* cases with their experiments, as written */
    k = (size_t)sprintf(text, "{\"schema\":\"benchsite.noise/1\","
                              "\"cases\":[");
    for (size_t c = 0; k < n; c++) {
      k += (size_t)sprintf(text + k,
                           "%s{\"benchmark\":\"b%zu\",\"dataset\":\"n=8\","
                           "\"runs\":20,\"paired_deltas_pct\":[",
                           c ? "," : "", c);
      for (int r = 0; r < 20; r++)
        k += (size_t)sprintf(text + k, "%s0.5", r ? "," : "");
      k += (size_t)sprintf(text + k, "],\"paired_noise_floor_pct\":0.5,"
                                     "\"experiments\":[");
      for (int r = 0; r < 20; r++)
        k += (size_t)sprintf(
            text + k,
            "%s{\"run\":%d,\"median_a_us\":10.123456789012345,"
            "\"median_b_us\":10.123456789012345,\"conf_ab\":0.5,"
            "\"drift_a\":{\"rho\":0.1,\"p\":0.5,\"drifted\":false},"
            "\"drift_b\":null,\"lag1_a\":0.01}",
            r ? "," : "", r);
      k += (size_t)sprintf(text + k, "]}");
    }
    k += (size_t)sprintf(text + k, "]}");
  } else { /* one case of dense paired deltas */
    k = (size_t)sprintf(text, "{\"schema\":\"benchsite.noise/1\","
                              "\"cases\":[{\"benchmark\":\"b\","
                              "\"dataset\":\"\",\"paired_deltas_pct\":[");
    while (k < n)
      text[k++] = '1', text[k++] = ',';
    k += (size_t)sprintf(text + k, "1],\"paired_noise_floor_pct\":1}]}");
  }
  return k;
}

Test(noise_hostile, noise_json_memory_is_a_fraction_of_the_input,
     .timeout = 120) {
#if defined(__SANITIZE_ADDRESS__)
  cr_skip_test("peak RSS is not meaningful under ASan");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  cr_skip_test("peak RSS is not meaningful under ASan");
#endif
#endif
  size_t n = (size_t)8 << 20;
  for (int kind = 0; kind < 3; kind++) {
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
      char *text = malloc(n + 4096);
      if (!text)
        _exit(3);
      size_t k = fake_noise_file(text, n, kind);
      struct rusage before, after;
      getrusage(RUSAGE_SELF, &before);
      bs_noise_floors *fl = NULL;
      bs_error err;
      bs_status st = bs_noise_floors_parse("n.json", text, k, &fl, &err);
      getrusage(RUSAGE_SELF, &after);
      /* 0: not a noise file; 1: read; 2: refused, past the text's size. */
      bs_status want = kind == 0 ? BS_EINPUT : kind == 1 ? BS_OK : BS_ELIMIT;
      if (st != want)
        _exit(4);
      if (kind == 1 && bs_noise_floors_count(fl) < 100)
        _exit(6);
      bs_noise_floors_free(fl);
      long grew_kb = after.ru_maxrss - before.ru_maxrss;
      _exit(grew_kb > (long)(k * 2 / 1024) ? 5 : 0);
    }
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
              "input %d: child status %d (4: wrong status, 5: more than 2 "
              "bytes per input byte)",
              kind, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
  }
}
