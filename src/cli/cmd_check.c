/* benchsite check: lint observation logs — format, calibration, rotation. */
#include "cli.h"

#include "benchsite/check.h"
#include "benchsite/run.h"

#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: benchsite check LOG... [--manifest M]\n"
    "\n"
    "Lints observation logs. Input that breaks the log format (missing\n"
    "columns, bad numbers, duplicate rows, ...) is reported as\n"
    "file:line, one error per file, with exit status 2. A readable log is\n"
    "then checked for:\n"
    "  unknown-column  header columns the reader ignores\n"
    "  calibration     calibration steps that break\n"
    "                  n' = min(n_max, max(n + 1, ceil(n T / t))) while\n"
    "                  t < T and n < n_max (T from the manifest's protocol:\n"
    "                  Shared 0.5 ms, the default, Development 5 ms,\n"
    "                  RegressionGate 10 ms; n_max = 10^9)\n"
    "  batch-size      confirm batch sizes: with batch_rule,least-of-three in\n"
    "                  the manifest (benchsite run writes it), every impl of\n"
    "                  a case uses the largest last calibration step unless\n"
    "                  the impls' least per-call times over their last three\n"
    "                  calibration steps differ by more than 4x in wall time\n"
    "                  and in CPU time, when each keeps its own (per-case:\n"
    "                  the fastest step's wall time alone decides); without\n"
    "                  a batch_rule, each impl's confirm batches equal its\n"
    "                  own last calibration step. A log without a manifest\n"
    "                  is held to what run does when it names nothing:\n"
    "                  Shared, least-of-three\n"
    "  missing-impl    blocks (or runs) missing an impl of the case\n"
    "  rotation        an impl that runs first in more blocks than another\n"
    "                  over whole rotation cycles\n"
    "Findings are printed as file:line: message.\n"
    "\n"
    "Exit status: 0 clean, 1 findings, 2 unreadable or invalid input.\n";

static const cli_opt opts[] = {{"manifest", 1, 1}};

/* Log text on a terminal: control bytes (escape sequences) become '?'. */
int cli_cmd_check(int argc, char **argv) {
  bs_check_result *res = NULL;
  bs_error err;
  bs_error_clear(&err);
  cli_cmd cmd;
  int rc = cli_cmd_begin(&cmd, "check", argc, argv, opts,
                         sizeof opts / sizeof opts[0], usage);
  if (rc || cmd.a.help)
    goto done;
  if (cmd.a.npos == 0) {
    rc = cli_usage_error("check: no observation log given");
    goto done;
  }
  if ((rc = cli_load_manifests(&cmd.a, cmd.mf, &cmd.nmf)))
    goto done;
  bs_check_options o;
  bs_check_options_init(&o);
  const char *protocol =
      cmd.nmf ? bs_manifest_get(cmd.mf[0], "protocol") : NULL;
  /* No manifest: what `run` does by default (which also writes none
   * unless asked). A manifest without batch_rule was written before the
   * rule: the earlier one. */
  const char *rule =
      cmd.nmf ? bs_manifest_get(cmd.mf[0], "batch_rule") : "least-of-three";
  if (bs_check_protocol_target(protocol, &o.target_us, &err) ||
      bs_check_batch_rule_named(rule, &o.batch_rule, &err)) {
    cli_errorf("%s: %s", bs_manifest_path(cmd.mf[0]), err.message);
    rc = CLI_BAD_INPUT;
    goto done;
  }

  /* Every broken file is named, and a file that is fine on its own but
   * not beside the others (a duplicate across files, say) is reported
   * only when no file is broken on its own. Each file is read once, into
   * the log of all of them; only a file that fails there is read again on
   * its own, to tell the two apart. Once one has failed, the rest are
   * read on their own (the reading together stops at the first error). */
  if (!(cmd.log = bs_log_new())) {
    rc = cli_out_of_memory();
    goto done;
  }
  bs_error across;
  bs_error_clear(&across);
  int together = 1;
  for (size_t i = 0; i < cmd.a.npos; i++) {
    const char *path = cmd.a.positional[i];
    bs_error_clear(&err);
    size_t rows = bs_log_count(cmd.log);
    if (together && !bs_log_read_file(cmd.log, path, &err)) {
      if (bs_log_count(cmd.log) == rows) {
        /* A log of only a header checks nothing: say which. */
        int r =
            cli_usage_error("%s: no observation rows (only a header)", path);
        if (r > rc)
          rc = r;
      }
      continue;
    }
    if (together) {
      across = err;
      together = 0;
    }
    bs_log *one = bs_log_new();
    if (!one) {
      rc = cli_out_of_memory();
      goto done;
    }
    bs_error_clear(&err);
    if (bs_log_read_file(one, path, &err)) {
      int r = cli_report_input(&err);
      if (r > rc)
        rc = r;
    } else if (bs_log_count(one) == 0) {
      int r = cli_usage_error("%s: no observation rows (only a header)", path);
      if (r > rc)
        rc = r;
    }
    bs_log_free(one);
  }
  if (rc)
    goto done;
  if (!together) {
    rc = cli_report_input(&across);
    goto done;
  }
  if (bs_check_run(cmd.log, &o, &res, &err)) {
    rc = cli_report(&err);
    goto done;
  }
  for (size_t i = 0; i < res->nfindings; i++) {
    const bs_finding *f = &res->findings[i];
    cli_linef(stdout, BS_TEXT_LINE_START, "%s:%ld: %s: %s", f->file, f->line,
              bs_check_kind_name(f->kind), f->message);
  }
  printf("%zu finding%s in %zu row%s of %zu case%s (calibration checked "
         "against T = %g ms, protocol %s%s)\n",
         res->nfindings, res->nfindings == 1 ? "" : "s", res->rows,
         res->rows == 1 ? "" : "s", res->cases, res->cases == 1 ? "" : "s",
         o.target_us / 1000.0,
         protocol  ? protocol
         : cmd.nmf ? BS_PROTOCOL_DEFAULT " (the default)"
                   : BS_PROTOCOL_DEFAULT " (no manifest: run's default)",
         o.batch_rule != BS_CHECK_BATCH_PER_IMPL ? "; one batch size per case"
                                                 : "");
  rc = res->nfindings ? CLI_REGRESSION : CLI_OK;
done:
  bs_check_result_free(res);
  return cli_cmd_end(&cmd, rc);
}
