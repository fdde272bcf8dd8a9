/* benchsite tune: fastest implementation per case and crossovers. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: benchsite tune LOG... [--json F] [--markdown F]\n"
    "\n"
    "Scores every impl of every case by the median of its confirm samples;\n"
    "the smallest wins (exact ties: impl id in byte order). For each pair\n"
    "of impls of a benchmark, finds the scales where the faster one changes\n"
    "(log-log interpolation between adjacent scales).\n"
    "\n"
    "  --json F       write benchsite.tune/1 JSON to F\n"
    "  --markdown F   write a Markdown summary to F\n"
    "\n"
    "Without --json/--markdown a table is printed on stdout.\n";

static const cli_opt opts[] = {
    {"json", 1, 0}, {"markdown", 1, 0}, {"html", 1, 0}, {"manifest", 1, 1}};

int cli_cmd_tune(int argc, char **argv) {
  cli_args a;
  bs_log *log = NULL;
  bs_tune_result *res = NULL;
  cli_output outs[2];
  size_t nouts = 0;
  bs_error err;
  bs_error_clear(&err);
  int rc = cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], &a);
  if (rc)
    goto done;
  if (a.help) {
    fputs(usage, stdout);
    goto done;
  }
  if (cli_get(&a, "html")) {
    rc = cli_usage_error("tune: --html is not available yet; use "
                         "'benchsite report'");
    goto done;
  }
  if ((rc = cli_load_logs(&a, &log)))
    goto done;
  if (bs_tune_run(log, &res, &err)) {
    rc = cli_report(&err);
    goto done;
  }
  const char *json = cli_get(&a, "json");
  const char *md = cli_get(&a, "markdown");
  if (json) {
    outs[nouts].path = json;
    if (bs_json_tune(res, &outs[nouts].data, &outs[nouts].len, &err)) {
      rc = cli_report(&err);
      goto done;
    }
    nouts++;
  }
  if (md) {
    outs[nouts].path = md;
    if (bs_markdown_tune(res, &outs[nouts].data, &outs[nouts].len, &err)) {
      rc = cli_report(&err);
      goto done;
    }
    nouts++;
  }
  if (nouts) {
    rc = cli_outputs_commit(outs, nouts);
    nouts = 0;
  } else {
    char *text;
    size_t len;
    if (bs_text_tune(res, &text, &len, &err)) {
      rc = cli_report(&err);
      goto done;
    }
    fwrite(text, 1, len, stdout);
    free(text);
  }
done:
  for (size_t i = 0; i < nouts; i++)
    free(outs[i].data);
  bs_tune_result_free(res);
  bs_log_free(log);
  cli_args_free(&a);
  return rc;
}
