#include "plotsafe.h"

#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *bs__gnuplot_program(const char *prog) {
  size_t n = strlen(prog);
  if (prog[0] == '/' || !strchr(prog, '/')) {
    char *p = malloc(n + 1);
    if (p)
      memcpy(p, prog, n + 1);
    return p;
  }
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) {
    char *p = malloc(n + 1);
    if (p)
      memcpy(p, prog, n + 1);
    return p; /* spawning reports it */
  }
  return bs__path_join(cwd, prog);
}

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void bs__gnuplot_version(const char *prog, char *buf, size_t n) {
  buf[0] = '\0';
  int fds[2];
  if (pipe(fds) != 0)
    return;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  /* The same minimal environment as for rendering. */
  char *envp[] = {(char *)"LC_ALL=C.UTF-8", (char *)"PATH=/usr/bin:/bin", NULL};
  char *argv[] = {(char *)prog, (char *)"--version", NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, prog, &fa, NULL, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return;
  }
  /* Read everything it prints, keeping the start: a program that prints
   * more than a pipe holds must not block for ever on a reader that
   * stopped. */
  size_t used = 0;
  long long deadline = now_ms() + BS__GNUPLOT_VERSION_MS;
  int killed = 0;
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0) {
      kill(pid, SIGKILL);
      killed = 1;
      break;
    }
    struct pollfd pf = {fds[0], POLLIN, 0};
    int r = poll(&pf, 1, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      continue; /* the deadline decides */
    char tmp[4096];
    ssize_t got = read(fds[0], tmp, sizeof tmp);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    size_t keep = (size_t)got;
    if (keep > n - 1 - used)
      keep = n - 1 - used;
    memcpy(buf + used, tmp, keep);
    used += keep;
  }
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (killed)
    used = 0;
  buf[used] = '\0';
  /* The first line, printable ASCII only (it goes into a cache key). */
  size_t k = 0;
  while (k < used && buf[k] != '\n')
    k++;
  buf[k] = '\0';
  for (size_t i = 0; i < k; i++)
    if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
      buf[i] = '?';
}

/* ---- SVG check ------------------------------------------------------- */

static int name_is(const xmlChar *name, const char *want) {
  return name && !strcasecmp((const char *)name, want);
}

/* The first thing wrong in the subtree of `node`, or NULL. */
static const char *bad_node(xmlNode *node, int depth) {
  if (depth > 256)
    return "elements nest too deeply";
  for (xmlNode *n = node; n; n = n->next) {
    if (n->type == XML_ENTITY_REF_NODE || n->type == XML_ENTITY_DECL)
      return "an entity reference";
    if (n->type == XML_PI_NODE && !name_is(n->name, "xml-stylesheet"))
      continue;
    if (n->type == XML_PI_NODE)
      return "a stylesheet instruction";
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (name_is(n->name, "script"))
      return "a <script> element";
    if (name_is(n->name, "foreignObject"))
      return "a <foreignObject> element";
    /* Animation can set any attribute later, href and on* included. */
    if (name_is(n->name, "set") || name_is(n->name, "animate") ||
        name_is(n->name, "animateMotion") ||
        name_is(n->name, "animateTransform"))
      return "an animation element";
    for (xmlAttr *a = n->properties; a; a = a->next) {
      const char *an = (const char *)a->name;
      if (!an)
        continue;
      if ((an[0] == 'o' || an[0] == 'O') && (an[1] == 'n' || an[1] == 'N'))
        return "an event-handler attribute";
      if (!strcasecmp(an, "href")) {
        xmlChar *v = xmlNodeGetContent((xmlNode *)a);
        /* Only references inside the document: "#id". */
        int local = v && v[0] == '#';
        xmlFree(v);
        if (!local)
          return "a link outside the document";
      }
    }
    const char *why = bad_node(n->children, depth + 1);
    if (why)
      return why;
  }
  return NULL;
}

static bs_status check_doc(const char *name, xmlDoc *doc, bs_error *err) {
  if (!doc)
    return bs_error_set(err, BS_EPLOT, name, 0,
                        "gnuplot wrote an SVG that is not well-formed XML");
  const char *why = NULL;
  xmlNode *root = xmlDocGetRootElement(doc);
  if (!root || !name_is(root->name, "svg"))
    why = "no <svg> root element";
  else if (doc->intSubset &&
           (doc->intSubset->entities || doc->intSubset->children))
    why = "a document type with declarations";
  else
    why = bad_node(root, 0);
  xmlFreeDoc(doc);
  if (why)
    return bs_error_set(err, BS_EPLOT, name, 0,
                        "refusing to publish gnuplot's SVG: it holds %s", why);
  return BS_OK;
}

/* No network, no entity substitution (XML_PARSE_NOENT is not given), no
 * DTD loading, no messages on stderr (the library never prints). */
#define SVG_PARSE_OPTIONS                                                      \
  (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |                 \
   XML_PARSE_NOCDATA)

void bs__svg_check_init(void) { xmlInitParser(); }

bs_status bs__svg_check_memory(const char *name, const char *data, size_t len,
                               bs_error *err) {
  if (len > (size_t)1 << 30)
    return bs_error_set(err, BS_EPLOT, name, 0, "the SVG is too large");
  xmlDoc *doc = xmlReadMemory(data, (int)len, NULL, NULL, SVG_PARSE_OPTIONS);
  return check_doc(name, doc, err);
}

bs_status bs__svg_check(const char *path, bs_error *err) {
  char *data = NULL;
  size_t len = 0;
  bs_status st = bs__read_regular(path, BS__OPEN_NOFOLLOW, (size_t)1 << 30,
                                  &data, &len, err);
  if (st) {
    free(data);
    return st == BS_ENOMEM ? st
                           : bs_error_set(err, BS_EPLOT, path, 0,
                                          "cannot read gnuplot's SVG");
  }
  st = bs__svg_check_memory(path, data, len, err);
  free(data);
  return st;
}
