/* benchsite archive: add runs to an immutable archive, verify, list. */
#include "cli.h"

#include "benchsite/archive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchsite archive add --archive DIR LOG... --manifest M "
    "[--dry-run]\n"
    "       benchsite archive verify --archive DIR\n"
    "       benchsite archive list --archive DIR\n"
    "\n"
    "add     validates a run (the logs and the manifest must read cleanly,\n"
    "        the manifest needs `commit` and an ISO 8601 UTC time `date` with\n"
    "        its time of day, and\n"
    "        'benchsite check' must find nothing) and stores it, with a\n"
    "        SHA256SUMS file, under DIR/runs/ID. The archive is created when\n"
    "        DIR does not exist. Runs never change: adding the same run again\n"
    "        does nothing; a different run under an existing id is refused.\n"
    "        The run appears atomically; a killed add leaves no trace but a\n"
    "        temporary directory the next add removes. --dry-run validates\n"
    "        and prints the id without writing anything.\n"
    "verify  re-checks every run's checksums and structure, acks.csv, ID\n"
    "        (the archive's identity: its first run's id, written by add)\n"
    "        and calibrations/ (each file a calibration; one named\n"
    "        DATE-HASH.json, as the action stores them, must still have that\n"
    "        date and hash), and lists what is damaged.\n"
    "list    prints the runs in history order (date, then id): id, date,\n"
    "        commit.\n"
    "\n"
    "ID = DATE-COMMIT-HASH: the manifest's date as YYYYMMDDTHHMMSSZ, up to 12\n"
    "letters and digits of its commit (others dropped; \"none\" if nothing\n"
    "is left), and the first 12 hex digits of the SHA-256 of SHA256SUMS.\n"
    "\n"
    "Exit status: 0 success (also: already archived; verify: no damage),\n"
    "1 verify found damage, 2 bad input, a refused run or bad usage, 3 I/O\n"
    "failure or a damaged run in the way.\n";

static const cli_opt opts[] = {
    {"archive", 1, 0}, {"manifest", 1, 0}, {"dry-run", 0, 0}};

static int cmd_add(const cli_args *a, const char *dir) {
  const char *manifest = cli_get(a, "manifest");
  bs_archive_add_result res;
  bs_error err;
  bs_error_clear(&err);
  bs_archive_add_result_init(&res);
  int rc = CLI_OK;
  if (!manifest) {
    rc = cli_usage_error("archive add: --manifest M is required");
    goto done;
  }
  if (a->npos < 2) {
    rc = cli_usage_error("archive add: no observation log given");
    goto done;
  }
  const char *const *logs = a->positional + 1;
  size_t nlogs = a->npos - 1;
  if (cli_flag(a, "dry-run")) {
    if (bs_archive_identify(manifest, logs, nlogs, &res, &err)) {
      for (size_t i = 0; i < res.nfindings; i++)
        cli_linef(stderr, BS_TEXT_LINE_START, "%s", res.findings[i]);
      rc = cli_report_input(&err);
      goto done;
    }
    printf("%s\n", res.id);
    goto done;
  }
  if (bs_archive_add(dir, manifest, logs, nlogs, &res, &err)) {
    for (size_t i = 0; i < res.nfindings; i++)
      cli_linef(stderr, BS_TEXT_LINE_START, "%s", res.findings[i]);
    /* A refused run is bad input (exit 2), an unreadable log included;
     * only a failing archive is an I/O failure (exit 3). */
    rc = res.refused ? cli_report_input(&err) : cli_report(&err);
    goto done;
  }
  if (res.added)
    printf("added run %s\n", res.id);
  else
    printf("run %s is already archived with the same content; nothing to "
           "do\n",
           res.id);
done:
  bs_archive_add_result_release(&res);
  return rc;
}

static int cmd_verify(const cli_args *a, const char *dir) {
  if (a->npos > 1)
    return cli_usage_error("archive verify: unexpected argument \"%s\"",
                           a->positional[1]);
  bs_archive_verify_result res;
  bs_error err;
  bs_error_clear(&err);
  bs_archive_verify_result_init(&res);
  int rc;
  if (bs_archive_verify(dir, &res, &err)) {
    rc = cli_report_input(&err);
    goto done;
  }
  for (size_t i = 0; i < res.nproblems; i++)
    cli_linef(stdout, BS_TEXT_LINE_START, "%s/%s", dir, res.problems[i]);
  printf("%zu run%s checked, %zu damaged", res.runs, res.runs == 1 ? "" : "s",
         res.damaged);
  if (res.acks_damaged)
    printf("; acks.csv is damaged");
  if (res.id_damaged)
    printf("; ID is damaged");
  if (res.calibrations || res.calibrations_damaged)
    printf("; %zu calibration%s checked, %zu damaged", res.calibrations,
           res.calibrations == 1 ? "" : "s", res.calibrations_damaged);
  if (res.stale)
    printf(" (%zu temporary director%s of an interrupted add ignored; the "
           "next add removes %s)",
           res.stale, res.stale == 1 ? "y" : "ies",
           res.stale == 1 ? "it" : "them");
  printf("\n");
  rc = res.damaged || res.acks_damaged || res.id_damaged ||
               res.calibrations_damaged
           ? CLI_REGRESSION
           : CLI_OK;
done:
  bs_archive_verify_result_release(&res);
  return rc;
}

static int cmd_list(const cli_args *a, const char *dir) {
  if (a->npos > 1)
    return cli_usage_error("archive list: unexpected argument \"%s\"",
                           a->positional[1]);
  bs_archive *ar = NULL;
  bs_error err;
  bs_error_clear(&err);
  if (bs_archive_open(dir, &ar, &err))
    return cli_report_input(&err);
  for (size_t i = 0; i < bs_archive_count(ar); i++) {
    const bs_archive_run *r = bs_archive_run_at(ar, i);
    /* The commit is user text: escaped so that it cannot forge lines or
     * fields. The id is safe by construction and the date was validated. */
    /* Tabs separate the fields, so only the commit is escaped (the
     * escaper would write a tab between fields as \x09). */
    size_t need = bs_text_escape(NULL, 0, r->commit, 0) + 1;
    char *commit = malloc(need);
    if (!commit) {
      bs_archive_free(ar);
      return cli_out_of_memory();
    }
    bs_text_escape(commit, need, r->commit, 0);
    printf("%s\t%s\t%s\n", r->id, r->date, commit);
    free(commit);
  }
  bs_archive_free(ar);
  return CLI_OK;
}

int cli_cmd_archive(int argc, char **argv) {
  cli_args a;
  int rc = cli_start(argc, argv, opts, sizeof opts / sizeof opts[0], usage, &a);
  if (rc || a.help)
    goto done;
  if (a.npos == 0) {
    rc = cli_usage_error("archive: name an action: add, verify or list (see "
                         "benchsite archive --help)");
    goto done;
  }
  const char *action = a.positional[0];
  const char *dir = cli_get(&a, "archive");
  if (strcmp(action, "add") && strcmp(action, "verify") &&
      strcmp(action, "list")) {
    rc = cli_usage_error("archive: unknown action \"%s\" (add, verify or "
                         "list)",
                         action);
    goto done;
  }
  if (!dir) {
    rc = cli_usage_error("archive %s: --archive DIR is required", action);
    goto done;
  }
  if (strcmp(action, "add") &&
      (cli_get(&a, "manifest") || cli_flag(&a, "dry-run"))) {
    rc = cli_usage_error("archive %s: --manifest and --dry-run belong to "
                         "add",
                         action);
    goto done;
  }
  if (!strcmp(action, "add"))
    rc = cmd_add(&a, dir);
  else if (!strcmp(action, "verify"))
    rc = cmd_verify(&a, dir);
  else
    rc = cmd_list(&a, dir);
done:
  rc = cli_finish(&a, rc);
  return rc;
}
