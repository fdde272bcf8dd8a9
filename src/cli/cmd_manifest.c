/* benchsite manifest: the environment manifest of this machine. */
#include "measure.h"

#include "benchsite/date.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: benchsite manifest [--out M] [--commit C] [--baseline-commit C]\n"
    "                          [--protocol P] [--profile P] [--dtype D]\n"
    "                          [--target T] [--baseline B] [--candidate C]\n"
    "                          [--aa A,B] [--set KEY=VALUE]...\n"
    "\n"
    "Writes the environment manifest (CSV, key,value) of this machine to M\n"
    "(default: standard output):\n"
    "  target            native, or --target\n"
    "  machine           \"<arch> <CPU model> \xc3\x97<logical CPUs>\" (uname, "
    "/proc/cpuinfo)\n"
    "  frequency_policy  cpufreq's scaling governor, or \"unknown\"\n"
    "  date              now in UTC (SOURCE_DATE_EPOCH overrides)\n"
    "  commit            --commit, or `git rev-parse HEAD` in a git work tree\n"
    "  kernel, cpus, memory_mib\n"
    "and every option given: protocol (Development, RegressionGate or\n"
    "Shared),\n"
    "profile, dtype, baseline_commit, baseline, candidate, aa_a and aa_b\n"
    "(--aa A,B), and any KEY=VALUE (--set, repeatable; it replaces a value\n"
    "of the same key, e.g. --set machine=ci-runner-1). Every value is quoted\n"
    "(RFC 4180) and is one line of text: a control character (a line break\n"
    "or tab among them) or U+2028/U+2029 is refused. `benchsite run\n"
    "--manifest-out M` writes the same manifest beside its log.\n"
    "\n"
    "Exit status: 0 written, 2 bad usage, 3 the file cannot be written.\n";

static const cli_opt opts[] = {
    {"out", 1, 0}, {"protocol", 1, 0}, CLI_MANIFEST_OPTS};

static int set(bs_manifest_draft *d, const char *key, const char *value) {
  bs_error err;
  bs_error_clear(&err);
  if (!value)
    return 0;
  /* An archive orders runs by this date and refuses a run without one it
   * can read: a manifest is not written with one it would refuse. */
  if (!strcmp(key, "date") && !bs_date_valid(value)) {
    cli_errorf("manifest: key date: \"%s\" is not an ISO 8601 UTC date or "
               "time such as 2026-11-30T10:56:21Z",
               value);
    return CLI_BAD_INPUT;
  }
  if (bs_manifest_draft_set(d, key, value, &err)) {
    cli_errorf("manifest: %s", err.message); /* it names the key */
    return err.status == BS_ENOMEM ? CLI_FAILURE : CLI_BAD_INPUT;
  }
  return 0;
}

static const char *opt_or(const cli_args *a, const char *name,
                          const char *fallback) {
  const char *v = cli_get(a, name);
  return v ? v : fallback;
}

int cli_manifest_render(const cli_args *a, const cli_manifest_fill *fill,
                        char **out, size_t *len) {
  static const cli_manifest_fill none = {0};
  bs_manifest_draft d;
  bs_machine_facts f;
  bs_error err;
  char num[2][32];
  char *aa = NULL;
  int rc = 0;
  bs_error_clear(&err);
  bs_manifest_draft_init(&d);
  *out = NULL;
  if (!fill)
    fill = &none;

  const char *protocol = opt_or(a, "protocol", fill->protocol);
  if (protocol) {
    double t;
    uint64_t m;
    if (bs_run_protocol(protocol, &t, &m, NULL, &err)) {
      rc = cli_usage_error("manifest: --protocol: %s", err.message);
      goto done;
    }
  }
  const char *aa_a = fill->aa_a, *aa_b = fill->aa_b;
  const char *aa_opt = cli_get(a, "aa");
  if (aa_opt) {
    const char *comma = strchr(aa_opt, ',');
    if (!comma || comma == aa_opt || !comma[1] || strchr(comma + 1, ',')) {
      rc = cli_usage_error("manifest: --aa: \"%s\" is not A,B (two impl ids)",
                           aa_opt);
      goto done;
    }
    if (!(aa = strdup(aa_opt))) {
      rc = cli_out_of_memory();
      goto done;
    }
    aa[comma - aa_opt] = '\0';
    aa_a = aa;
    aa_b = aa + (comma - aa_opt) + 1;
  }
  const char *commit = cli_get(a, "commit");
  if (bs_machine_probe(&f, getenv("SOURCE_DATE_EPOCH"), commit == NULL, &err)) {
    rc = cli_usage_error("manifest: %s", err.message);
    goto done;
  }
  if (!commit && f.commit[0])
    commit = f.commit;
  snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)f.cpus);
  snprintf(num[1], sizeof num[1], "%llu", (unsigned long long)f.memory_mib);

  const char *const kv[][2] = {
      {"target", opt_or(a, "target", "native")},
      {"profile", cli_get(a, "profile")},
      {"dtype", cli_get(a, "dtype")},
      {"machine", f.machine},
      {"frequency_policy", f.frequency_policy},
      {"protocol", protocol},
      {"date", f.date},
      {"commit", commit},
      {"baseline_commit", cli_get(a, "baseline-commit")},
      {"baseline", opt_or(a, "baseline", fill->baseline)},
      {"candidate", opt_or(a, "candidate", fill->candidate)},
      {"aa_a", aa_a},
      {"aa_b", aa_b},
      {"harness", fill->harness},
      {"batch_rule", fill->batch_rule},
      {"fresh", fill->fresh},
      {"duet", fill->duet},
      {"duet_swap", fill->duet_swap},
      {"layout", fill->layout},
      {"layout_seed", fill->layout_seed},
      {"gate_metric", fill->gate_metric},
      {"max_runs", fill->max_runs},
      {"kernel", f.kernel},
      {"cpus", num[0]},
      {"memory_mib", num[1]},
  };
  for (size_t i = 0; !rc && i < sizeof kv / sizeof kv[0]; i++)
    rc = set(&d, kv[i][0], kv[i][1]);
  const char *const *sets;
  size_t nsets = cli_getall(a, "set", &sets);
  for (size_t i = 0; !rc && i < nsets; i++) {
    const char *eq = strchr(sets[i], '=');
    if (!eq || eq == sets[i]) {
      rc = cli_usage_error("manifest: --set: \"%s\" is not KEY=VALUE", sets[i]);
      break;
    }
    char *key = strndup(sets[i], (size_t)(eq - sets[i]));
    if (!key) {
      rc = cli_out_of_memory();
      break;
    }
    rc = set(&d, key, eq + 1);
    free(key);
  }
  if (!rc && bs_manifest_draft_render(&d, out, len, &err))
    rc = cli_report(&err);
done:
  free(aa);
  bs_manifest_draft_release(&d);
  return rc;
}

int cli_measure_check_path(const char *opt, const char *path) {
  struct stat st;
  if (!path[0])
    return cli_usage_error("--%s needs a file name", opt);
  if (!strcmp(path, "-"))
    return 0;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return cli_usage_error("--%s: %s exists and is not a regular file", opt,
                           path);
  /* Its directory must exist before anything is measured, not be found
   * missing after a long run. */
  const char *slash = strrchr(path, '/');
  if (slash) {
    char dir[CLI_PATH_MAX];
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= sizeof dir)
      return cli_usage_error("--%s: the file name is too long", opt);
    memcpy(dir, path, n);
    dir[n] = '\0';
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
      return cli_usage_error("--%s: %s: no such directory", opt, dir);
  }
  return 0;
}

/* The one place the measuring commands write files. */
int cli_measure_write(cli_output *outs, size_t n) {
  cli_output files[2];
  const cli_output *to_stdout = NULL;
  size_t nf = 0;
  for (size_t i = 0; i < n && i < 2; i++) {
    if (!strcmp(outs[i].path, "-"))
      to_stdout = &outs[i];
    else
      files[nf++] = outs[i];
  }
  int rc = cli_outputs_commit(files, nf);
  if (!rc && to_stdout)
    fwrite(to_stdout->data, 1, to_stdout->len, stdout);
  if (to_stdout)
    free(to_stdout->data);
  for (size_t i = 0; i < n; i++)
    outs[i].data = NULL;
  return rc;
}

int cli_cmd_manifest(int argc, char **argv) {
  cli_args a;
  int rc = cli_start(argc, argv, opts, sizeof opts / sizeof opts[0], usage, &a);
  if (rc || a.help)
    return cli_finish(&a, rc);
  if (a.npos)
    return cli_finish(&a, cli_usage_error("manifest: unexpected argument "
                                          "\"%s\" (see benchsite manifest "
                                          "--help)",
                                          a.positional[0]));
  const char *path = opt_or(&a, "out", "-");
  if ((rc = cli_measure_check_path("out", path)))
    return cli_finish(&a, rc);
  cli_output o = {path, NULL, 0};
  if ((rc = cli_manifest_render(&a, NULL, &o.data, &o.len)))
    return cli_finish(&a, rc);
  rc = cli_measure_write(&o, 1);
  return cli_finish(&a, rc);
}
