/* benchsite bisect: the search. The start measures the bad commit against
 * the good one; each probe measures a commit of the first-parent path
 * between them against the good one, as `run` measures (paired,
 * interleaved, side by side where it can be), and is judged slower, not
 * slower or undecided; an undecided probe gets more runs in fresh
 * processes, and one still undecided ends the search with the range it
 * could not split. The culprit is measured once more against its parent
 * before it is named. Here: which commits to build, in what order to
 * probe them and what the probes say; a probe itself (measuring and
 * judging) is bisect_probe.c. */
#include "benchsite/bisect.h"
#include "benchsite/compare.h"
#include "benchsite/protocol.h"

#include "bisect_probe.h"
#include "oom.h"
#include "strlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bs_bisect_outcome_name(bs_bisect_outcome o) {
  switch (o) {
  case BS_BISECT_FOUND:
    return "found";
  case BS_BISECT_NO_STEP:
    return "no-step";
  case BS_BISECT_UNDECIDED:
    return "undecided-range";
  }
  return "?";
}

const char *bs_bisect_verdict_name(bs_bisect_verdict v) {
  switch (v) {
  case BS_BISECT_SLOWER:
    return "slower";
  case BS_BISECT_NOT_SLOWER:
    return "not slower";
  case BS_BISECT_UNDECIDED_AT:
    return "undecided";
  case BS_BISECT_SKIPPED:
    return "skipped";
  }
  return "?";
}

const char *bs_bisect_role_name(bs_bisect_role r) {
  switch (r) {
  case BS_BISECT_START:
    return "start";
  case BS_BISECT_PROBE:
    return "probe";
  case BS_BISECT_CONFIRM:
    return "confirm";
  }
  return "?";
}

int bs_bisect_exit_status(const bs_bisect_result *r) {
  return r->outcome == BS_BISECT_FOUND       ? 1
         : r->outcome == BS_BISECT_UNDECIDED ? 4
                                             : 0;
}

void bs_bisect_options_init(bs_bisect_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = BS_RUN_LIBRARY;
  o->jobs = 1;
}

static void free_probe(bs_bisect_probe *p) {
  for (size_t i = 0; i < p->ncases; i++) {
    free(p->cases[i].benchmark);
    free(p->cases[i].dataset);
  }
  free(p->cases);
  free(p->commit);
  free(p->against);
  free(p->reason);
}

void bs_bisect_result_free(bs_bisect_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->nprobes; i++)
    free_probe(&r->probes[i]);
  free(r->probes);
  for (size_t i = 0; i < r->nskipped; i++) {
    free(r->skipped[i].commit);
    free(r->skipped[i].subject);
    free(r->skipped[i].reason);
  }
  free(r->skipped);
  bs__strlist_free(r->notes, r->nnotes);
  free(r->good);
  free(r->bad);
  free(r->protocol);
  free(r->culprit);
  free(r->culprit_subject);
  free(r->parent);
  free(r->range_first);
  free(r->range_last);
  free(r->cache);
  free(r);
}

/* ---- State ----------------------------------------------------------------
 * (bs__bisect_state, bisect_probe.h)
 */

/* What is known of a commit of the path. */
enum { UNKNOWN = 0, SLOWER, NOT_SLOWER, SKIPPED };

static int on_poll(void *ctx, size_t running) {
  bs__bisect_state *s = ctx;
  if (!s->o->progress)
    return 0;
  s->prog.building = running;
  return s->o->progress(s->o->progress_ctx, &s->prog);
}

/* ---- Building ---------------------------------------------------------------
 */

static bs_status add_skip(bs__bisect_state *s, size_t i, const char *reason,
                          bs_error *err) {
  bs_bisect_result *r = s->r;
  bs_bisect_skip *k = realloc(r->skipped, (r->nskipped + 1) * sizeof *k);
  if (!k)
    return bs__oom(err);
  r->skipped = k;
  k += r->nskipped;
  memset(k, 0, sizeof *k);
  r->nskipped++;
  k->commit = bs__strdup(s->ids[i]);
  k->subject = bs__git_subject(&s->repo, s->ids[i]);
  k->reason = bs__strdup(reason);
  if (!k->commit || !k->reason)
    return bs__oom(err);
  if (!k->subject && !(k->subject = bs__strdup("")))
    return bs__oom(err);
  s->known[i] = SKIPPED;
  return BS_OK;
}

/* The next commit the search would probe in (lo, hi), nearest to the
 * middle and not skipped; 0 when there is none. */
static size_t pick(const bs__bisect_state *s, size_t lo, size_t hi) {
  if (hi - lo < 2)
    return 0;
  size_t mid = lo + (hi - lo) / 2;
  for (size_t d = 0; d < hi - lo; d++) {
    if (mid + d < hi && s->known[mid + d] != SKIPPED)
      return mid + d;
    if (d && mid - d > lo && s->known[mid - d] != SKIPPED)
      return mid - d;
  }
  return 0;
}

/* Adds to list (up to cap) the commits the search may probe after
 * probing m in (lo, hi): breadth first, the likelier ones first. */
static void plan(const bs__bisect_state *s, size_t lo, size_t hi, size_t *list,
                 size_t *n, size_t cap) {
  size_t qlo[64], qhi[64], head = 0, tail = 0;
  qlo[tail] = lo;
  qhi[tail++] = hi;
  while (head < tail && *n < cap) {
    size_t a = qlo[head], b = qhi[head++];
    size_t m = pick(s, a, b);
    if (!m)
      continue;
    int have = 0;
    for (size_t i = 0; i < *n; i++)
      have |= list[i] == m;
    if (!have && !s->built[m])
      list[(*n)++] = m;
    if (tail + 2 <= 64) {
      qlo[tail] = a;
      qhi[tail++] = m;
      qlo[tail] = m;
      qhi[tail++] = b;
    }
  }
}

/* Builds the commits of need[] (those not built yet) and, with --jobs
 * above 1, those the next probes may need. Builds that fail are skipped
 * (named in the result). */
static bs_status build(bs__bisect_state *s, const size_t *need, size_t nneed,
                       bs_bisect_role role, bs_error *err) {
  size_t cap = s->o->jobs > nneed ? s->o->jobs : nneed;
  if (cap > 64)
    cap = 64;
  size_t list[64], n = 0;
  for (size_t i = 0; i < nneed && n < 64; i++)
    if (!s->built[need[i]] && s->known[need[i]] != SKIPPED)
      list[n++] = need[i];
  if (n == 0)
    return BS_OK;
  if (role != BS_BISECT_CONFIRM)
    plan(s, s->lo, s->hi, list, &n, cap);
  bs__build b[64];
  memset(b, 0, sizeof b);
  for (size_t i = 0; i < n; i++)
    b[i].id = s->ids[list[i]];
  s->prog.stage = BS_BISECT_BUILDING;
  s->prog.commit = s->ids[list[0]];
  bs_status st =
      bs__cache_build(&s->cache, b, n, bs__bisect_check_build, s, err);
  for (size_t i = 0; !st && i < n; i++) {
    size_t k = list[i];
    if (b[i].ok) {
      s->built[k] = 1;
      s->reused[k] = b[i].reused;
      if (b[i].reused)
        s->r->builds_reused++;
      else
        s->r->builds_made++;
    } else {
      st = add_skip(s, k, b[i].reason, err);
    }
  }
  for (size_t i = 0; i < n; i++)
    bs__build_release(&b[i]);
  return st;
}

/* ---- The search
 * ---------------------------------------------------------------
 */

static bs_status note(bs__bisect_state *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bs_status note(bs__bisect_state *s, const char *fmt, ...) {
  char text[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return bs__strlist_addf(&s->r->notes, &s->r->nnotes, "%s", text);
}

static bs_status check_ref(const char *opt, const char *ref, bs_error *err) {
  if (!ref || !ref[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "--%s: name a commit", opt);
  if (ref[0] == '-')
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--%s: \"%s\" looks like an option, not a commit", opt,
                        ref);
  for (const char *p = ref; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "--%s: a commit name holds no control characters",
                          opt);
  if (strlen(ref) > 1024)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "--%s: the name is too long",
                        opt);
  return BS_OK;
}

/* The full id of ref (a commit), malloc'd into *id. */
static bs_status resolve(bs__bisect_state *s, const char *opt, const char *ref,
                         char **id, bs_error *err) {
  bs_status st = check_ref(opt, ref, err);
  if (st)
    return st;
  char *spec = bs__strdupf("%s^{commit}", ref);
  if (!spec)
    return bs__oom(err);
  const char *args[] = {"rev-parse",        "--verify", "--quiet",
                        "--end-of-options", spec,       NULL};
  int status = 0;
  char *out = NULL;
  st = bs__git(&s->repo, args, &out, NULL, &status, err);
  free(spec);
  if (st)
    return st;
  out[strcspn(out, "\r\n")] = '\0';
  if (status != 0 || !bs__is_commit_id(out)) {
    free(out);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "--%s: \"%s\" is not a commit of the repository", opt,
                        ref);
  }
  *id = out;
  return BS_OK;
}

/* The first-parent path from good to bad into s->ids. */
static bs_status read_path(bs__bisect_state *s, bs_error *err) {
  const char *good = s->r->good, *bad = s->r->bad;
  if (!strcmp(good, bad))
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "--good and --bad are the same commit %.12s", good);
  const char *anc[] = {"merge-base", "--is-ancestor", good, bad, NULL};
  int status = 0;
  bs_status st = bs__git(&s->repo, anc, NULL, NULL, &status, err);
  if (st)
    return st;
  if (status == 1)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "the good commit %.12s is not an ancestor of the bad "
                        "commit %.12s",
                        good, bad);
  if (status != 0)
    return bs_error_set(err, BS_EIO, NULL, 0,
                        "git merge-base failed (exit status %d)", status);
  char *not_good = bs__strdupf("^%s", good);
  if (!not_good)
    return bs__oom(err);
  const char *list[] = {"rev-list", "--first-parent", "--parents", "--reverse",
                        bad,        not_good,         NULL};
  char *out = NULL;
  size_t len = 0;
  st = bs__git(&s->repo, list, &out, &len, NULL, err);
  free(not_good);
  if (st)
    return st;
  size_t lines = 0;
  for (size_t i = 0; i < len; i++)
    lines += out[i] == '\n';
  s->ids = calloc(lines + 2, sizeof *s->ids);
  s->known = calloc(lines + 2, sizeof *s->known);
  s->built = calloc(lines + 2, sizeof *s->built);
  s->reused = calloc(lines + 2, sizeof *s->reused);
  if (!s->ids || !s->known || !s->built || !s->reused) {
    free(out);
    return bs__oom(err);
  }
  if (!(s->ids[0] = bs__strdup(good))) {
    free(out);
    return bs__oom(err);
  }
  size_t n = 0;
  char *line = out;
  while (*line) {
    char *end = strchr(line, '\n');
    if (end)
      *end = '\0';
    char *sp = strchr(line, ' ');
    if (sp)
      *sp = '\0';
    char *parent = sp ? sp + 1 : NULL;
    if (parent)
      parent[strcspn(parent, " ")] = '\0';
    if (!bs__is_commit_id(line) || !parent || strcmp(parent, s->ids[n])) {
      int off_path = n == 0 && bs__is_commit_id(line);
      free(out);
      if (off_path)
        return bs_error_set(err, BS_EINPUT, NULL, 0,
                            "the good commit %.12s is not on the first-parent "
                            "history of the bad commit %.12s (it came in "
                            "through a merge): choose a commit of that "
                            "history",
                            good, bad);
      return bs_error_set(err, BS_EIO, NULL, 0,
                          "unexpected output from git rev-list");
    }
    if (!(s->ids[++n] = bs__strdup(line))) {
      free(out);
      return bs__oom(err);
    }
    if (!end)
      break;
    line = end + 1;
  }
  free(out);
  if (n == 0 || strcmp(s->ids[n], bad))
    return bs_error_set(err, BS_EIO, NULL, 0,
                        "unexpected output from git rev-list");
  s->n = n;
  return BS_OK;
}

/* The cases the start found slower, with their probe thresholds. */
static bs_status track(bs__bisect_state *s, const bs_bisect_probe *start,
                       bs_error *err) {
  s->cases = calloc(start->ncases, sizeof *s->cases);
  if (!s->cases)
    return bs__oom(err);
  size_t undecided = 0;
  char names[600] = "";
  for (size_t i = 0; i < start->ncases; i++) {
    const bs_bisect_case *c = &start->cases[i];
    if (c->verdict == BS_BISECT_UNDECIDED_AT) {
      if (undecided++ < 4) {
        size_t u = strlen(names);
        snprintf(names + u, sizeof names - u, "%s%s%s%s%s",
                 undecided > 1 ? ", " : "", c->benchmark,
                 c->dataset[0] ? " [" : "", c->dataset,
                 c->dataset[0] ? "]" : "");
      }
      continue;
    }
    if (c->verdict != BS_BISECT_SLOWER)
      continue;
    bs__tracked *t = &s->cases[s->ncases++];
    t->benchmark = bs__strdup(c->benchmark);
    t->dataset = bs__strdup(c->dataset);
    if (!t->benchmark || !t->dataset)
      return bs__oom(err);
    /* Half the step the start measured; but a noisy start can
     * overestimate it, and a threshold above the true step would make
     * the probes after it undecided: never above what the start shows
     * with confidence (its interval's low end), nor below half the
     * start's own threshold (a step that small was not asked for). */
    double half = c->delta_pct / 2;
    if (half > c->ci_low_pct)
      half = c->ci_low_pct;
    if (half < s->start_pct / 2)
      half = s->start_pct / 2;
    t->threshold_pct = s->o->threshold_pct > 0 ? s->o->threshold_pct : half;
    t->start_low_pct = c->ci_low_pct;
    t->start_delta_pct = c->delta_pct;
  }
  if (undecided)
    return note(s,
                "%zu case%s could neither be shown slower nor ruled out "
                "between good and bad and %s not followed: %s%s",
                undecided, undecided == 1 ? "" : "s",
                undecided == 1 ? "was" : "were", names,
                undecided > 4 ? ", ..." : "");
  return BS_OK;
}

static bs_status set_range(bs__bisect_state *s, size_t first, size_t last,
                           bs_error *err) {
  s->r->outcome = BS_BISECT_UNDECIDED;
  s->r->range_first = bs__strdup(s->ids[first]);
  s->r->range_last = bs__strdup(s->ids[last]);
  return s->r->range_first && s->r->range_last ? BS_OK : bs__oom(err);
}

static bs_status search(bs__bisect_state *s, bs_error *err) {
  bs_bisect_result *r = s->r;
  bs_status st;
  bs_bisect_probe *p = NULL;
  /* The start: good and bad, each must build and measure. */
  s->lo = 0;
  s->hi = s->n;
  bs__bisect_expect(s, 1, BS_BISECT_START);
  size_t ends[2] = {0, s->n};
  if ((st = build(s, ends, 2, BS_BISECT_START, err)))
    return st;
  for (size_t k = 0; k < r->nskipped; k++) {
    const bs_bisect_skip *e = &r->skipped[k];
    int good = !strcmp(e->commit, r->good);
    if (good || !strcmp(e->commit, r->bad))
      return bs_error_set(err, BS_EINPUT, NULL, 0, "the %s commit %.12s %s",
                          good ? "good" : "bad", e->commit, e->reason);
  }
  if ((st = bs__bisect_measure(s, BS_BISECT_START, s->n, 0, &p, err)))
    return st;
  if (p->verdict == BS_BISECT_SKIPPED)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "bad %.12s against good %.12s cannot be measured: %s",
                        s->ids[s->n], s->ids[0], p->reason);
  if (p->verdict == BS_BISECT_NOT_SLOWER) {
    r->outcome = BS_BISECT_NO_STEP;
    return BS_OK;
  }
  if (p->verdict == BS_BISECT_UNDECIDED_AT) {
    if ((st = note(s,
                   "good against bad could neither show a step of %g %% "
                   "nor rule one out in %llu runs",
                   s->start_pct, (unsigned long long)p->runs)))
      return st;
    return set_range(s, 1, s->n, err);
  }
  if ((st = track(s, p, err)))
    return st;
  /* The halvings. */
  while (s->hi - s->lo > 1) {
    size_t m = pick(s, s->lo, s->hi);
    if (!m) {
      if ((st = note(s,
                     "every commit between %.12s and %.12s was skipped: "
                     "the step is at one of them or at %.12s",
                     s->ids[s->lo], s->ids[s->hi], s->ids[s->hi])))
        return st;
      return set_range(s, s->lo + 1, s->hi, err);
    }
    bs__bisect_expect(s, r->nprobes + 1, BS_BISECT_PROBE);
    if ((st = build(s, &m, 1, BS_BISECT_PROBE, err)))
      return st;
    if (s->known[m] == SKIPPED) {
      /* In the trail too, measured as nothing. */
      bs_bisect_probe *q = bs__bisect_new_probe(s, BS_BISECT_PROBE, m, 0, err);
      if (!q)
        return BS_ENOMEM;
      q->verdict = BS_BISECT_SKIPPED;
      q->built = 0;
      if (!(q->reason = bs__strdup(r->skipped[r->nskipped - 1].reason)))
        return bs__oom(err);
      continue;
    }
    if ((st = bs__bisect_measure(s, BS_BISECT_PROBE, m, 0, &p, err)))
      return st;
    switch (p->verdict) {
    case BS_BISECT_SKIPPED:
      if ((st = add_skip(s, m, p->reason, err)))
        return st;
      break;
    case BS_BISECT_SLOWER:
      s->known[m] = SLOWER;
      s->hi = m;
      break;
    case BS_BISECT_NOT_SLOWER:
      s->known[m] = NOT_SLOWER;
      s->lo = m;
      break;
    case BS_BISECT_UNDECIDED_AT:
      if ((st = note(s,
                     "%.12s could not be judged in %llu runs: the step is "
                     "between %.12s and %.12s",
                     s->ids[m], (unsigned long long)p->runs, s->ids[s->lo + 1],
                     s->ids[s->hi])))
        return st;
      return set_range(s, s->lo + 1, s->hi, err);
    }
  }
  /* The end: the culprit against its parent, directly. */
  size_t c = s->hi, par = s->hi - 1;
  size_t both[2] = {par, c};
  bs__bisect_expect(s, r->nprobes + 1, BS_BISECT_CONFIRM);
  if ((st = build(s, both, 2, BS_BISECT_CONFIRM, err)))
    return st;
  if ((st = bs__bisect_measure(s, BS_BISECT_CONFIRM, c, par, &p, err)))
    return st;
  if (p->verdict == BS_BISECT_SLOWER) {
    r->outcome = BS_BISECT_FOUND;
    r->culprit = bs__strdup(s->ids[c]);
    r->parent = bs__strdup(s->ids[par]);
    r->culprit_subject = bs__git_subject(&s->repo, s->ids[c]);
    if (!r->culprit_subject)
      r->culprit_subject = bs__strdup("");
    if (!r->culprit || !r->parent || !r->culprit_subject)
      return bs__oom(err);
    /* A culprit that explains less than the start saw: more steps. */
    const bs_bisect_case *k = &p->cases[p->shown];
    const bs__tracked *t = bs__bisect_find_tracked(s, k->benchmark, k->dataset);
    if (t && k->ci_high_pct < t->start_low_pct &&
        (st = note(s,
                   "%s%s%s%s: the culprit's %+.2f %% is less than the %+.2f "
                   "%% between good and bad: the range may hold more "
                   "steps, and the search finds one",
                   k->benchmark, k->dataset[0] ? " [" : "", k->dataset,
                   k->dataset[0] ? "]" : "", k->delta_pct, t->start_delta_pct)))
      return st;
    return BS_OK;
  }
  /* The culprit's "slower" or its parent's "not slower" was wrong (or
   * the step is spread): the step is after the last commit shown not
   * slower before the parent, and at or before the first commit shown
   * slower after the culprit; neither of the two contested verdicts
   * narrows that. */
  size_t first = 1, last = s->n;
  for (size_t i = par; i-- > 1;)
    if (s->known[i] == NOT_SLOWER) {
      first = i + 1;
      break;
    }
  for (size_t i = c + 1; i < s->n; i++)
    if (s->known[i] == SLOWER) {
      last = i;
      break;
    }
  if ((st = note(s,
                 "%.12s against its parent %.12s is %s: the slowdown "
                 "between good and bad may be spread over several commits, "
                 "or a probe misled the search; the step is at one of the "
                 "commits from %.12s to %.12s",
                 s->ids[c], s->ids[par], bs_bisect_verdict_name(p->verdict),
                 s->ids[first], s->ids[last])))
    return st;
  return set_range(s, first, last, err);
}

bs_status bs_bisect_run(const bs_bisect_options *o, bs_bisect_result **out,
                        bs_error *err) {
  *out = NULL;
  bs__bisect_state s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.t0 = bs__bisect_now();
  s.cache.lock_fd = -1;
  bs_status st;
  if (!o->build || !o->build[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--build: name the command that builds a commit");
  if (!o->bench || !o->bench[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "name the benchmark");
  if ((st = check_ref("good", o->good, err)) ||
      (st = check_ref("bad", o->bad, err)))
    return st;
  char **argv = NULL;
  if ((st = bs__split_with_tree(o->build, "", &argv, err)))
    return st;
  free(argv);
  if (o->mode != BS_RUN_LIBRARY) {
    if ((st = bs__split_with_tree(o->bench, "", &argv, err)))
      return st;
    int absolute = argv[0][0] == '/';
    free(argv);
    if (absolute && !bs__bisect_runs_as_is(o->mode) &&
        !bs__bisect_has_tree_mark(o->bench))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "the benchmark command starts with an absolute "
                          "path, the same program at every commit: give its "
                          "path inside the tree, or write {tree} where the "
                          "tree goes");
  } else if (o->bench[0] == '/' && !bs__bisect_has_tree_mark(o->bench)) {
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--lib %s is an absolute path, the same library at "
                        "every commit: give its path inside the tree, or "
                        "write {tree} where the tree goes",
                        o->bench);
  }
  if (!bs_metric_get(o->metric))
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "unknown metric");
  s.protocol = o->protocol ? o->protocol : BS_PROTOCOL_DEFAULT;
  if ((st =
           bs_run_protocol(s.protocol, &s.target_us, &s.blocks, &s.runs0, err)))
    return st;
  if (o->blocks)
    s.blocks = o->blocks;
  s.max_runs = o->max_runs ? o->max_runs : 4 * s.runs0;
  if (s.max_runs < s.runs0 || s.max_runs > 4 * s.runs0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--max-runs %llu: from the %llu runs of the protocol "
                        "%s to four times as many (the levels of the looks "
                        "hold that far)",
                        (unsigned long long)s.max_runs,
                        (unsigned long long)s.runs0, s.protocol);
  if (o->threshold_pct != 0 &&
      !(o->threshold_pct >= BS_MIN_THRESHOLD_PCT && o->threshold_pct < 1e6))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--threshold %g: a percentage of at least %g, please",
                        o->threshold_pct, BS_MIN_THRESHOLD_PCT);
  s.start_pct = o->threshold_pct > 0 ? o->threshold_pct : BS_GATE_THRESHOLD_PCT;
  s.poll.fn = on_poll;
  s.poll.ctx = &s;
  s.prog.stage = BS_BISECT_PREPARING;
  s.r = calloc(1, sizeof *s.r);
  if (!s.r)
    return bs__oom(err);
  s.r->threshold_pct = s.start_pct;
  s.r->threshold_given = o->threshold_pct > 0;
  s.r->metric = o->metric;
  if (!(s.r->protocol = bs__strdup(s.protocol))) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = bs__env_init(&s.env, err)))
    goto done;
  s.repo.dir = o->repo ? o->repo : ".";
  s.repo.env = &s.env;
  s.repo.poll = &s.poll;
  if ((st = bs__repo_open(&s.repo, err)))
    goto done;
  if ((st = resolve(&s, "good", o->good, &s.r->good, err)) ||
      (st = resolve(&s, "bad", o->bad, &s.r->bad, err)) ||
      (st = read_path(&s, err)))
    goto done;
  s.r->commits = s.n;
  char *cache = o->cache ? bs__strdup(o->cache)
                         : bs__strdupf("%s/benchsite-bisect", s.repo.common);
  if (!cache) {
    st = bs__oom(err);
    goto done;
  }
  st = bs__cache_open(&s.cache, cache, &s.repo, o->build, err);
  free(cache);
  if (st)
    goto done;
  if (!(s.r->cache = bs__strdup(s.cache.dir))) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = note(&s, "the search assumes one step between good and bad")))
    goto done;
  st = search(&s, err);
done:
  bs__cache_close(&s.cache);
  bs__repo_release(&s.repo);
  bs__env_release(&s.env);
  for (size_t i = 0; s.ids && i <= s.n; i++)
    free(s.ids[i]);
  free(s.ids);
  free(s.known);
  free(s.built);
  free(s.reused);
  for (size_t i = 0; i < s.ncases; i++) {
    free(s.cases[i].benchmark);
    free(s.cases[i].dataset);
  }
  free(s.cases);
  if (st) {
    bs_bisect_result_free(s.r);
    return st;
  }
  s.r->seconds = bs__bisect_now() - s.t0;
  *out = s.r;
  return BS_OK;
}
