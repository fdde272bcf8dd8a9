/* Running gnuplot for a bs_plot: batches of charts, each rendered by one
 * `gnuplot -d` process from a script and a data file, their charts
 * checked; bs_plot_render and the pool that shares gnuplot processes
 * between many batches. */
#include "benchsite/plot.h"

#include "buf.h"
#include "fsutil.h"
#include "grow.h"
#include "oom.h"
#include "plot_int.h"
#include "plotsafe.h"
#include "pool.h"
#include "spawn_proc.h"
#include "strlist.h"
#include "svgmin.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* gnuplot's messages kept for an error. */
#define STDERR_KEEP 4096

/* ---- Running gnuplot ---------------------------------------------------- */

/* The first non-blank line of gnuplot's stderr, trimmed. */
static void first_line(const char *s, size_t n, char *out, size_t outn) {
  size_t i = 0;
  out[0] = '\0';
  while (i < n) {
    while (i < n &&
           (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
      i++;
    size_t j = i;
    while (j < n && s[j] != '\n')
      j++;
    if (j > i) {
      size_t len = j - i;
      if (len >= outn)
        len = outn - 1;
      for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)s[i + k];
        out[k] = s[i + k];
        if (c < 0x20 || c == 0x7f)
          out[k] = ' ';
      }
      out[len] = '\0';
      return;
    }
    i = j;
  }
}

/* Starts gnuplot on the script file `script` in `dir` (where it writes
 * its charts): `gnuplot -d` (no startup file) with a minimal environment
 * (no HOME, no GNUPLOT_*, no PAGER or SHELL that a stray command could
 * pick up; UTF-8 so labels convert cleanly), stdout (progress markers)
 * and stderr (messages) to non-blocking pipes. gnuplot reads a piped
 * script one byte per read(), so the script is a file it reads in blocks;
 * stdin is /dev/null. */
static bs_status spawn_gnuplot(const char *prog, const char *dir,
                               const char *script, bs__child *ch,
                               bs_error *err) {
  const char *argv[] = {prog, "-d", script, NULL};
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.minimal_env = 1;
  o.dir = dir;
  o.io[1] = BS__IO_PIPE;
  o.io[2] = BS__IO_PIPE;
  o.nonblock = 1;
  o.fail_status = BS_EPLOT;
  return bs__spawn(ch, &o, err);
}

/* Collects gnuplot's markers and messages until it closes its output,
 * calling the progress hook as charts complete. */
static bs_status pump(const bs__child *ch, size_t total, const bs_plot_run *run,
                      char *errbuf, size_t *errlen, int *cancelled,
                      long long idle_ms, int *timed_out) {
  size_t done = 0;
  int out_open = 1, err_open = 1, exited = 0, wait_ms = 250, drained = 0;
  char buf[4096];
  *cancelled = 0;
  *timed_out = 0;
  /* A gnuplot that finishes no chart for idle_ms is hung (a chart takes
   * milliseconds): it is killed, never waited for for ever. Messages on
   * stderr, and markers beyond the charts asked for, are no progress: one
   * line every few seconds would keep a hung gnuplot alive. */
  long long last = bs__now_ms();
  while (out_open || err_open) {
    if (bs__now_ms() - last > idle_ms) {
      *timed_out = 1;
      return BS_EPLOT;
    }
    struct pollfd fds[2];
    nfds_t nf = 0;
    int iout = -1, ierr = -1;
    if (out_open) {
      fds[nf].fd = ch->fd[1];
      fds[nf].events = POLLIN;
      iout = (int)nf++;
    }
    if (err_open) {
      fds[nf].fd = ch->fd[2];
      fds[nf].events = POLLIN;
      ierr = (int)nf++;
    }
    int r = poll(fds, nf, wait_ms);
    if (r < 0 && errno != EINTR)
      return BS_EIO;
    if (run && run->progress &&
        run->progress(run->progress_ctx, done, total) != 0) {
      *cancelled = 1;
      return BS_EPLOT;
    }
    /* Once gnuplot has exited, what it wrote last is read without
     * waiting (a few passes at most): whatever still holds its output
     * open is not gnuplot. */
    if (r == 0 && exited)
      break;
    if (r == 0 && bs__child_exited(ch)) {
      exited = 1;
      wait_ms = 0;
    }
    if (r <= 0)
      continue;
    if (exited && ++drained > 64)
      break;
    if (iout >= 0 && (fds[iout].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = read(ch->fd[1], buf, sizeof buf);
      if (n > 0) {
        size_t before = done;
        for (ssize_t i = 0; i < n; i++)
          done += buf[i] == '\n';
        if (before < total && done > before)
          last = bs__now_ms();
        if (run && run->progress &&
            run->progress(run->progress_ctx, done, total) != 0) {
          *cancelled = 1;
          return BS_EPLOT;
        }
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        out_open = 0;
      }
    }
    if (ierr >= 0 && (fds[ierr].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = read(ch->fd[2], buf, sizeof buf);
      if (n > 0) {
        size_t keep = STDERR_KEEP - 1 - *errlen;
        if ((size_t)n < keep)
          keep = (size_t)n;
        memcpy(errbuf + *errlen, buf, keep);
        *errlen += keep;
        errbuf[*errlen] = '\0';
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        err_open = 0;
      }
    }
  }
  return BS_OK;
}

/* Progress offsets for a batch that renders charts [from, to). */
typedef struct batch_progress {
  const bs_plot_run *run;
  size_t from, total;
} batch_progress;

static int batch_hook(void *ctx, size_t done, size_t total) {
  const batch_progress *b = ctx;
  (void)total;
  return b->run->progress(b->run->progress_ctx, b->from + done, b->total);
}

/* Charts [from, to) rendered by one gnuplot process from a script file
 * and one data file: every file created costs the kernel an inode, which
 * on a busy ext4 costs more CPU than gnuplot spends on a small chart, so
 * a batch creates two, not one per chart. */
typedef struct batch {
  size_t from, to;
  bs__child ch;
  char script[32]; /* its name in the chart directory */
  char data[32];
  int wrote_data;
} batch;

static void unlink_in(const char *dir, const char *name) {
  char *path = bs__path_join(dir, name);
  if (path)
    unlink(path);
  free(path);
}

/* The data of the batch's charts in its file. */
static bs_status write_batch_data(const bs_plot *p, const char *dir, batch *b,
                                  bs_error *err) {
  bs__buf all;
  bs__buf_init(&all, 0);
  bs_status st = bs__plot_data(p, b->from, b->to, &all);
  char *path = st ? NULL : bs__path_join(dir, b->data);
  if (st || !path)
    st = bs__oom(err);
  else if (!(st = bs__write_file(path, all.data ? all.data : "", all.len, 1,
                                 err)))
    b->wrote_data = 1;
  free(path);
  bs__buf_release(&all);
  return st;
}

/* Removes what the batch wrote besides its charts. */
static void batch_cleanup(const char *dir, const bs_plot_run *run, batch *b) {
  unlink_in(dir, b->script);
  if (b->wrote_data && !(run && run->keep_data))
    unlink_in(dir, b->data);
  b->wrote_data = 0;
}

/* Writes the batch's data and script and starts its gnuplot. */
static bs_status start_batch(const bs_plot *p, const char *dir,
                             const bs_plot_run *run, batch *b, bs_error *err) {
  bs__buf script;
  bs__buf_init(&script, BS__CAP_PLOT_SCRIPT);
  b->ch.pid = -1;
  b->wrote_data = 0;
  snprintf(b->script, sizeof b->script, "gp%06zu.gp", b->from);
  snprintf(b->data, sizeof b->data, "gp%06zu.dat", b->from);
  /* A relative path is the caller's, not the chart directory's (gnuplot
   * starts there). */
  char *prog =
      bs__gnuplot_program(run && run->gnuplot ? run->gnuplot : "gnuplot");
  bs_status st = bs__plot_script(p, b->from, b->to, b->data, &script);
  if (st == BS_EINTERNAL) {
    st = bs_error_set(err, BS_EINTERNAL, NULL, 0,
                      "refusing to run a gnuplot script with unsafe bytes");
    goto done;
  }
  if (st || !prog) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = write_batch_data(p, dir, b, err)))
    goto done;
  char *path = bs__path_join(dir, b->script);
  if (!path) {
    st = bs__oom(err);
    goto done;
  }
  st = bs__write_file(path, script.data, script.len, 1, err);
  free(path);
  if (!st)
    st = spawn_gnuplot(prog, dir, b->script, &b->ch, err);
done:
  if (st)
    batch_cleanup(dir, run, b);
  free(prog);
  bs__buf_release(&script);
  return st;
}

/* Waits for the batch's gnuplot (collecting its markers and messages,
 * calling the progress hook) and checks its charts. `stop` kills it
 * first (another batch failed). `total` is the charts of the whole
 * render, for the progress hook. */
static bs_status finish_batch(const bs_plot *p, const char *dir,
                              const bs_plot_run *run, batch *b, size_t total,
                              int stop, bs_error *err) {
  bs_status st = BS_OK;
  char *errbuf = NULL;
  char *prog =
      bs__gnuplot_program(run && run->gnuplot ? run->gnuplot : "gnuplot");
  batch_progress bp = {run, b->from, total};
  bs_plot_run hook;
  memset(&hook, 0, sizeof hook);
  if (run && run->progress) {
    hook.progress = batch_hook;
    hook.progress_ctx = &bp;
  }
  errbuf = malloc(STDERR_KEEP);
  if (stop || !errbuf)
    bs__child_signal(&b->ch, SIGTERM);
  int cancelled = 0, timed_out = 0;
  long long idle_ms = run && run->idle_timeout_ms
                          ? (long long)run->idle_timeout_ms
                          : BS__GNUPLOT_IDLE_MS;
  size_t errlen = 0;
  bs_status pst = BS_EIO;
  if (errbuf && !stop) {
    errbuf[0] = '\0';
    pst = pump(&b->ch, b->to - b->from, hook.progress ? &hook : NULL, errbuf,
               &errlen, &cancelled, idle_ms, &timed_out);
    if (pst)
      bs__child_signal(&b->ch, timed_out ? SIGKILL : SIGTERM);
  }
  /* Done or told to stop, it gets a bounded time to exit; then it and
   * all it started are killed. */
  long long exit_ms =
      idle_ms < BS__GNUPLOT_EXIT_MS ? idle_ms : BS__GNUPLOT_EXIT_MS;
  bs__child_end end;
  bs_status wst = bs__child_wait(&b->ch, exit_ms, &end);
  int late = end.timed_out;
  int ws = wst ? -1 : end.status;
  batch_cleanup(dir, run, b);
  if (stop)
    goto done;
  if (!errbuf || !prog) {
    st = bs__oom(err);
    goto done;
  }
  if (pst) {
    if (timed_out)
      st = bs_error_set(err, BS_EPLOT, NULL, 0,
                        "%s did nothing for %lld s and was killed", prog,
                        idle_ms / 1000);
    else
      st = bs_error_set(err, BS_EPLOT, NULL, 0, "%s",
                        cancelled ? "chart rendering cancelled"
                                  : "lost contact with gnuplot");
    goto done;
  }
  if (late) {
    st = bs_error_set(err, BS_EPLOT, NULL, 0,
                      "%s did not exit within %lld ms of closing its "
                      "output and was killed",
                      prog, exit_ms);
    goto done;
  }
  if (ws < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    char line[300];
    first_line(errbuf, errlen, line, sizeof line);
    if (ws >= 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
      st = bs_error_set(err, BS_EPLOT, NULL, 0,
                        "cannot run %s (is gnuplot installed?)", prog);
    else if (ws >= 0 && WIFSIGNALED(ws))
      st = bs_error_set(err, BS_EPLOT, NULL, 0, "%s killed by signal %d%s%s",
                        prog, WTERMSIG(ws), line[0] ? ": " : "", line);
    else
      st = bs_error_set(err, BS_EPLOT, NULL, 0, "%s failed (exit %d)%s%s", prog,
                        ws >= 0 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1,
                        line[0] ? ": " : "", line);
    goto done;
  }
  for (size_t i = b->from; i < b->to; i++) {
    char *svg = bs__path_join(dir, p->charts[i].file);
    struct stat sb;
    int ok =
        svg && lstat(svg, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
    free(svg);
    if (!ok) {
      char line[300];
      first_line(errbuf, errlen, line, sizeof line);
      st = bs_error_set(err, BS_EPLOT, p->charts[i].file, 0,
                        "gnuplot left the chart missing or empty%s%s",
                        line[0] ? ": " : "", line);
      goto done;
    }
  }
  /* Nothing gnuplot wrote is published unchecked (nor with the half of
   * its bytes that draws nothing). */
  for (size_t i = b->from; i < b->to && !st; i++) {
    char *svg = bs__path_join(dir, p->charts[i].file);
    st = svg ? bs__svg_check_compact(svg, err) : bs__oom(err);
    free(svg);
  }
done:
  free(prog);
  free(errbuf);
  return st;
}

/* Charts per batch: charts_per_process, or the charts shared out between
 * `jobs` processes. */
static size_t batch_size(const bs_plot *p, const bs_plot_run *run,
                         size_t jobs) {
  if (run && run->charts_per_process)
    return run->charts_per_process;
  return (p->n + jobs - 1) / jobs;
}

bs_status bs_plot_render(bs_plot *p, const char *dir, const bs_plot_run *run,
                         bs_error *err) {
  if (!p)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "no chart batch");
  if (p->status)
    return bs_error_set(err, p->status, NULL, 0, "chart: %s", p->why);
  if (p->n == 0)
    return BS_OK;
  bs_status st = BS_OK;
  /* The charts are shared out between `jobs` gnuplot processes running
   * at once (or run charts_per_process at a time, jobs at once). */
  size_t jobs = bs__jobs(run ? run->jobs : 0);
  size_t per = batch_size(p, run, jobs);
  size_t nb = (p->n + per - 1) / per;
  if (jobs > nb)
    jobs = nb;
  batch *b = calloc(jobs ? jobs : 1, sizeof *b);
  if (!b)
    return bs__oom(err);
  for (size_t wave = 0; wave < nb && !st; wave += jobs) {
    size_t started = 0;
    for (size_t k = 0; k < jobs && wave + k < nb && !st; k++) {
      b[k].from = (wave + k) * per;
      b[k].to = b[k].from + per < p->n ? b[k].from + per : p->n;
      st = start_batch(p, dir, run, &b[k], err);
      if (!st)
        started++;
    }
    for (size_t k = 0; k < started; k++) {
      bs_status fs = finish_batch(p, dir, run, &b[k], p->n, st != BS_OK, err);
      if (!st)
        st = fs;
    }
  }
  free(b);
  return st;
}

/* ---- A pool of gnuplot processes for many batches ------------------------ */

typedef struct pool_job {
  bs_plot_pool *pool;
  size_t plot; /* index into plots */
  size_t from, to;
  size_t counted; /* charts of this batch counted in charts_done */
} pool_job;

/* A submitted bs_plot: its directory, its batches (jobs, which do not
 * move while the pool runs them) and those still to finish, and what to
 * call once every chart of the pool is rendered. */
typedef struct pool_plot {
  bs_plot *p;
  char *dir;
  pool_job *jobs;
  size_t left; /* batches not yet finished */
  bs_plot_done_fn done;
  void *ctx;
} pool_plot;

struct bs_plot_pool {
  bs_plot_run run; /* gnuplot copied into prog */
  char *prog;
  size_t jobs;
  bs__pool *workers;
  pthread_mutex_t mu;
  /* Guarded by mu: */
  pool_plot *plots;
  size_t nplots, capplots;
  bs_status status; /* the first failure */
  bs_error error;
  /* Read by the workers' progress hooks without the lock. */
  atomic_int stop;
  /* For a progress display (bs_plot_pool_count): charts submitted, and
   * charts rendered, counted by the batch that rendered them. */
  atomic_size_t charts_total, charts_done;
};

/* A running gnuplot polls this every 250 ms and calls it as each chart
 * is written: once a batch has failed (or the pool is being freed), the
 * others are killed instead of finishing. `done` counts from the start of
 * the whole bs_plot (the batch's `from`); only the worker running the
 * batch touches `counted`. */
static int pool_hook(void *ctx, size_t done, size_t total) {
  pool_job *job = ctx;
  (void)total;
  size_t in = done > job->from ? done - job->from : 0;
  if (in > job->to - job->from)
    in = job->to - job->from;
  if (in > job->counted) {
    atomic_fetch_add(&job->pool->charts_done, in - job->counted);
    job->counted = in;
  }
  return atomic_load(&job->pool->stop) != 0;
}

/* One batch, on a worker of the pool. */
static void pool_batch(void *arg) {
  pool_job *job = arg;
  bs_plot_pool *pool = job->pool;
  bs_plot_run run = pool->run;
  run.progress = pool_hook;
  run.progress_ctx = job;
  pthread_mutex_lock(&pool->mu);
  const bs_plot *p = pool->plots[job->plot].p;
  const char *dir = pool->plots[job->plot].dir;
  pthread_mutex_unlock(&pool->mu);
  bs_status st = BS_OK;
  bs_error err;
  bs_error_clear(&err);
  if (!atomic_load(&pool->stop)) {
    batch b;
    memset(&b, 0, sizeof b);
    b.from = job->from;
    b.to = job->to;
    st = start_batch(p, dir, &run, &b, &err);
    if (!st)
      st = finish_batch(p, dir, &run, &b, p->n, 0, &err);
    if (!st) /* every chart of the batch is on disk and checked */
      atomic_fetch_add(&pool->charts_done, job->to - job->from - job->counted);
  }
  pthread_mutex_lock(&pool->mu);
  pool_plot *pp = &pool->plots[job->plot]; /* plots may have moved */
  if (st && !pool->status) {
    pool->status = st;
    pool->error = err;
    atomic_store(&pool->stop, 1);
  }
  if (--pp->left == 0) {
    bs_plot_free(pp->p); /* its charts are on disk: only ctx is left */
    pp->p = NULL;
  }
  pthread_mutex_unlock(&pool->mu);
}

bs_plot_pool *bs_plot_pool_new(const bs_plot_run *run) {
  bs_plot_pool *pool = calloc(1, sizeof *pool);
  if (!pool)
    return NULL;
  if (run)
    pool->run = *run;
  pool->run.progress = NULL;
  pool->run.progress_ctx = NULL;
  pool->prog =
      bs__gnuplot_program(run && run->gnuplot ? run->gnuplot : "gnuplot");
  pool->jobs = bs__jobs(run ? run->jobs : 0);
  if (!pool->prog || !(pool->workers = bs__pool_new(pool->jobs)) ||
      pthread_mutex_init(&pool->mu, NULL) != 0) {
    bs__pool_free(pool->workers);
    free(pool->prog);
    free(pool);
    return NULL;
  }
  pool->run.gnuplot = pool->prog;
  atomic_init(&pool->stop, 0);
  atomic_init(&pool->charts_total, 0);
  atomic_init(&pool->charts_done, 0);
  return pool;
}

/* Calls and forgets every plot's `done` (ok or not); no job is queued or
 * running. The first failure of an ok `done` stops the others (they are
 * called with ok = 0). */
static bs_status pool_drain(bs_plot_pool *pool, int ok, bs_error *err) {
  bs_status st = BS_OK;
  for (size_t i = 0; i < pool->nplots; i++) {
    pool_plot *pp = &pool->plots[i];
    if (pp->done) {
      bs_status ds = pp->done(pp->ctx, ok && !st, err);
      if (ok && !st)
        st = ds;
    }
    bs_plot_free(pp->p);
    free(pp->dir);
    free(pp->jobs);
  }
  pool->nplots = 0;
  return st;
}

bs_status bs_plot_pool_submit(bs_plot_pool *pool, bs_plot *p, const char *dir,
                              bs_plot_done_fn done, void *ctx, bs_error *err) {
  if (!pool || !p || !dir || p->status) {
    bs_status st =
        !pool || !p || !dir
            ? bs_error_set(err, BS_EINTERNAL, NULL, 0, "no chart pool or batch")
            : bs_error_set(err, p->status, NULL, 0, "chart: %s", p->why);
    bs_plot_free(p);
    if (done)
      done(ctx, 0, NULL);
    return st;
  }
  size_t per = batch_size(p, &pool->run, pool->jobs);
  size_t nb = p->n ? (p->n + per - 1) / per : 0;
  char *d = bs__strdup(dir);
  pool_job *jobs = calloc(nb ? nb : 1, sizeof *jobs);
  pthread_mutex_lock(&pool->mu);
  pool_plot *pl =
      d && jobs ? BS__GROW(pool->plots, pool->capplots, pool->nplots + 1, 16)
                : NULL;
  if (!pl) {
    pthread_mutex_unlock(&pool->mu);
    free(d);
    free(jobs);
    bs_plot_free(p);
    if (done)
      done(ctx, 0, NULL);
    return bs__oom(err);
  }
  pool->plots = pl;
  size_t idx = pool->nplots++;
  pool_plot *pp = &pool->plots[idx];
  pp->p = nb ? p : NULL;
  pp->dir = d;
  pp->jobs = jobs;
  pp->left = nb;
  pp->done = done;
  pp->ctx = ctx;
  atomic_fetch_add(&pool->charts_total, p->n);
  /* Queued under the lock, so that no batch finishes (and frees p) before
   * all are queued; a batch that cannot be queued fails the pool. */
  bs_status st = BS_OK;
  for (size_t k = 0; k < nb; k++) {
    pool_job *j = &jobs[k];
    j->pool = pool;
    j->plot = idx;
    j->from = k * per;
    j->to = j->from + per < p->n ? j->from + per : p->n;
    int rc = st ? 0 : bs__pool_submit(pool->workers, pool_batch, j);
    if (rc || st) {
      if (!st) {
        st = bs_error_set(err, rc == ENOMEM ? BS_ENOMEM : BS_EIO, NULL, 0, "%s",
                          rc == ENOMEM ? BS__OOM_TEXT
                                       : "cannot start a chart thread");
        if (!pool->status) {
          pool->status = st;
          if (err)
            pool->error = *err;
          atomic_store(&pool->stop, 1);
        }
      }
      pp->left--; /* never runs */
    }
  }
  if (nb && pp->left == 0) {
    bs_plot_free(pp->p);
    pp->p = NULL;
  }
  pthread_mutex_unlock(&pool->mu);
  if (!nb)
    bs_plot_free(p);
  return st;
}

void bs_plot_pool_count(bs_plot_pool *pool, size_t *done, size_t *total) {
  *done = pool ? atomic_load(&pool->charts_done) : 0;
  *total = pool ? atomic_load(&pool->charts_total) : 0;
}

bs_status bs_plot_pool_wait_progress(bs_plot_pool *pool,
                                     int (*progress)(void *ctx, size_t done,
                                                     size_t total),
                                     void *ctx, bs_error *err) {
  /* Polled: the workers call nothing back (see bs_plot_pool). */
  while (pool && progress && !atomic_load(&pool->stop)) {
    size_t done, total;
    bs_plot_pool_count(pool, &done, &total);
    if (progress(ctx, done, total)) {
      atomic_store(&pool->stop, 1);
      bs__pool_wait(pool->workers);
      pthread_mutex_lock(&pool->mu);
      pool_drain(pool, 0, NULL);
      pthread_mutex_unlock(&pool->mu);
      return bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
    }
    if (done >= total)
      break;
    struct timespec ts = {0, 50000000L}; /* 50 ms */
    nanosleep(&ts, NULL);
  }
  return bs_plot_pool_wait(pool, err);
}

bs_status bs_plot_pool_wait(bs_plot_pool *pool, bs_error *err) {
  if (!pool)
    return BS_OK;
  bs__pool_wait(pool->workers);
  pthread_mutex_lock(&pool->mu);
  bs_status st = pool->status;
  if (st && err)
    *err = pool->error;
  bs_status ds = pool_drain(pool, st == BS_OK, err);
  pthread_mutex_unlock(&pool->mu);
  return st ? st : ds;
}

void bs_plot_pool_free(bs_plot_pool *pool) {
  if (!pool)
    return;
  atomic_store(&pool->stop, 1);
  /* Queued batches are dropped; running ones see `stop` and end. */
  bs__pool_free(pool->workers);
  pthread_mutex_lock(&pool->mu);
  pool_drain(pool, 0, NULL);
  pthread_mutex_unlock(&pool->mu);
  pthread_mutex_destroy(&pool->mu);
  free(pool->plots);
  free(pool->prog);
  free(pool);
}
