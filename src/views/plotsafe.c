#include "plotsafe.h"

#include "fsutil.h"
#include "oom.h"
#include "spawn_proc.h"
#include "xmlload.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
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

void bs__gnuplot_version(const char *prog, char *buf, size_t n) {
  bs__gnuplot_version_within(prog, buf, n, BS__GNUPLOT_VERSION_MS);
}

void bs__gnuplot_version_within(const char *prog, char *buf, size_t n,
                                long long limit_ms) {
  buf[0] = '\0';
  const char *argv[] = {prog, "--version", NULL};
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.io[1] = BS__IO_PIPE;
  o.minimal_env = 1; /* the same environment as for rendering */
  bs__child ch;
  if (bs__spawn(&ch, &o, NULL))
    return;
  /* Everything it prints is read, keeping the start: a program that
   * prints more than a pipe holds must not block for ever on a reader
   * that stopped. One that closed its output and stayed gets what is left
   * of the time; then it and all it started are killed. */
  long long deadline = bs__now_ms() + limit_ms;
  size_t used = 0;
  int rc = bs__child_collect(&ch, 1, buf, n, &used, deadline);
  bs__child_end end;
  long long left = deadline - bs__now_ms();
  if (bs__child_wait(&ch, rc == 2 ? 0 : (left > 0 ? left : 0), &end) ||
      rc == 2 || end.timed_out)
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

/* The check runs on libxml2's SAX2 events instead of a tree: a chart has
 * thousands of elements, and building, walking and freeing their nodes
 * cost more than gnuplot spent drawing them. The parser is the same
 * (well-formedness, namespaces, character references); every element,
 * attribute, entity, declaration and processing instruction it reports
 * is judged as it comes, and the first thing wrong is kept. */
typedef struct svg_state {
  int depth;       /* elements open */
  int seen_root;   /* the first element was <svg> */
  const char *why; /* the first thing wrong, or NULL */
} svg_state;

static void refuse(svg_state *s, const char *why) {
  if (!s->why)
    s->why = why;
}

/* The first function of v[0..n-1] (a CSS value: an attribute gnuplot
 * writes, a style declaration) that could load something from outside the
 * document, or NULL. url() is allowed only as a same-document fragment,
 * url(#id); image(), image-set(), cross-fade(), element() and src() are
 * refused, and so is a backslash (a CSS escape could spell "url"
 * differently). */
static const char *outside_url(const char *v, size_t n) {
  static const char *const loaders[] = {
      "image", "image-set",         "cross-fade",        "element",
      "src",   "-webkit-image-set", "-webkit-cross-fade"};
  const char *end = v + n;
  if (memchr(v, '\\', n))
    return "a CSS escape in an attribute";
  for (const char *p = memchr(v, '(', n); p;
       p = p + 1 < end ? memchr(p + 1, '(', (size_t)(end - p - 1)) : NULL) {
    const char *name = p;
    while (name > v && (isalnum((unsigned char)name[-1]) || name[-1] == '-' ||
                        name[-1] == '_'))
      name--;
    size_t len = (size_t)(p - name);
    if (len == 3 && !strncasecmp(name, "url", 3)) {
      const char *q = p + 1;
      while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' ||
                         *q == '\f'))
        q++;
      if (q < end && (*q == '"' || *q == '\''))
        q++;
      if (q >= end || *q != '#')
        return "a url() outside the document";
      continue;
    }
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++)
      if (strlen(loaders[i]) == len && !strncasecmp(name, loaders[i], len))
        return "a CSS function that loads an image";
  }
  return NULL;
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                     const xmlChar *uri, int nns, const xmlChar **ns, int nattr,
                     int ndefaulted, const xmlChar **attrs) {
  xmlParserCtxtPtr pc = ctx;
  svg_state *s = pc->_private;
  (void)prefix;
  (void)uri;
  (void)nns;
  (void)ns;
  (void)ndefaulted;
  if (!s->seen_root) {
    s->seen_root = 1;
    if (!name_is(localname, "svg"))
      refuse(s, "no <svg> root element");
  }
  if (++s->depth > 257)
    refuse(s, "elements nest too deeply");
  if (name_is(localname, "script"))
    refuse(s, "a <script> element");
  else if (name_is(localname, "foreignObject"))
    refuse(s, "a <foreignObject> element");
  /* CSS can @import and url() what it likes; gnuplot writes none. */
  else if (name_is(localname, "style"))
    refuse(s, "a <style> element");
  /* Animation can set any attribute later, href and on* included. */
  else if (name_is(localname, "set") || name_is(localname, "animate") ||
           name_is(localname, "animateMotion") ||
           name_is(localname, "animateTransform"))
    refuse(s, "an animation element");
  for (size_t i = 0; nattr > 0 && i < (size_t)nattr; i++) {
    const char *an = (const char *)attrs[5 * i];
    if (!an)
      continue;
    if ((an[0] == 'o' || an[0] == 'O') && (an[1] == 'n' || an[1] == 'N'))
      refuse(s, "an event-handler attribute");
    /* Only references inside the document: "#id" (the value as parsed:
     * character references already decoded). */
    const char *v = (const char *)attrs[5 * i + 3];
    size_t vn = (size_t)(attrs[5 * i + 4] - attrs[5 * i + 3]);
    if (!strcasecmp(an, "href")) {
      if (!(vn > 0 && v[0] == '#'))
        refuse(s, "a link outside the document");
    } else {
      /* style="...", fill=, filter=, clip-path=, mask=, ... */
      const char *why = outside_url(v, vn);
      if (why)
        refuse(s, why);
    }
  }
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                   const xmlChar *uri) {
  xmlParserCtxtPtr pc = ctx;
  svg_state *s = pc->_private;
  (void)localname;
  (void)prefix;
  (void)uri;
  s->depth--;
}

static void on_reference(void *ctx, const xmlChar *name) {
  xmlParserCtxtPtr pc = ctx;
  (void)name;
  refuse(pc->_private, "an entity reference");
}

/* Anywhere, before the root included: <?xml-stylesheet?> loads a
 * stylesheet, and gnuplot writes no instruction (the XML declaration is
 * not one). */
static void on_pi(void *ctx, const xmlChar *target, const xmlChar *data) {
  xmlParserCtxtPtr pc = ctx;
  (void)data;
  refuse(pc->_private, name_is(target, "xml-stylesheet")
                           ? "a stylesheet instruction"
                           : "a processing instruction");
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type,
                           const xmlChar *public_id, const xmlChar *system_id,
                           xmlChar *content) {
  xmlParserCtxtPtr pc = ctx;
  (void)name;
  (void)type;
  (void)public_id;
  (void)system_id;
  /* libxml2's type for this callback has it non-const. */
  xmlChar *text = content;
  (void)text;
  refuse(pc->_private, "a document type with declarations");
}

static void on_element_decl(void *ctx, const xmlChar *name, int type,
                            xmlElementContentPtr content) {
  xmlParserCtxtPtr pc = ctx;
  (void)name;
  (void)type;
  (void)content;
  refuse(pc->_private, "a document type with declarations");
}

static void on_attribute_decl(void *ctx, const xmlChar *elem,
                              const xmlChar *fullname, int type, int def,
                              const xmlChar *defaultValue,
                              xmlEnumerationPtr tree) {
  xmlParserCtxtPtr pc = ctx;
  (void)elem;
  (void)fullname;
  (void)type;
  (void)def;
  (void)defaultValue;
  bs__xml.xmlFreeEnumeration(tree); /* the handler owns it */
  refuse(pc->_private, "a document type with declarations");
}

static void on_notation_decl(void *ctx, const xmlChar *name,
                             const xmlChar *public_id,
                             const xmlChar *system_id) {
  xmlParserCtxtPtr pc = ctx;
  (void)name;
  (void)public_id;
  (void)system_id;
  refuse(pc->_private, "a document type with declarations");
}

static void on_unparsed_decl(void *ctx, const xmlChar *name,
                             const xmlChar *public_id, const xmlChar *system_id,
                             const xmlChar *notation) {
  xmlParserCtxtPtr pc = ctx;
  (void)name;
  (void)public_id;
  (void)system_id;
  (void)notation;
  refuse(pc->_private, "a document type with declarations");
}

/* Errors are kept by the context (wellFormed), never printed. */
static void on_error(void *ctx, xmlErrorPtr e) {
  (void)ctx;
  (void)e;
}

/* No network, no entity substitution (XML_PARSE_NOENT is not given), no
 * DTD loading, no messages on stderr (the library never prints). */
#define SVG_PARSE_OPTIONS                                                      \
  (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |                 \
   XML_PARSE_NOCDATA)

static bs_status too_large(const char *name, bs_error *err) {
  return bs_error_set(err, BS_EPLOT, name, 0,
                      "gnuplot wrote an SVG larger than %d MiB: refusing to "
                      "read it",
                      BS__SVG_MAX_MIB);
}

bs_status bs__svg_check_memory(const char *name, const char *data, size_t len,
                               bs_error *err) {
  if (len > (size_t)BS__SVG_MAX_MIB << 20)
    return too_large(name, err);
  bs_status st = bs__xml_load(err);
  if (st)
    return st;
  xmlParserCtxtPtr pc = bs__xml.xmlCreateMemoryParserCtxt(data, (int)len);
  if (!pc)
    return bs__oom(err);
  bs__xml.xmlCtxtUseOptions(pc, SVG_PARSE_OPTIONS);
  /* Only the events the check needs; nothing else is built or loaded (no
   * external subset or entity resolver: nothing outside the file). */
  xmlSAXHandler h;
  memset(&h, 0, sizeof h);
  h.initialized = XML_SAX2_MAGIC;
  h.startElementNs = on_start;
  h.endElementNs = on_end;
  h.reference = on_reference;
  h.processingInstruction = on_pi;
  h.entityDecl = on_entity_decl;
  h.elementDecl = on_element_decl;
  h.attributeDecl = on_attribute_decl;
  h.notationDecl = on_notation_decl;
  h.unparsedEntityDecl = on_unparsed_decl;
  h.serror = on_error;
  memcpy(pc->sax, &h, sizeof h);
  svg_state s = {0, 0, NULL};
  pc->_private = &s;
  int parsed = bs__xml.xmlParseDocument(pc) == 0;
  int wf = parsed && pc->wellFormed;
  bs__xml.xmlFreeParserCtxt(pc);
  if (!wf)
    return bs_error_set(err, BS_EPLOT, name, 0,
                        "gnuplot wrote an SVG that is not well-formed XML");
  if (!s.seen_root)
    refuse(&s, "no <svg> root element");
  if (s.why)
    return bs_error_set(err, BS_EPLOT, name, 0,
                        "refusing to publish gnuplot's SVG: it holds %s",
                        s.why);
  return BS_OK;
}

bs_status bs__svg_read(const char *path, char **data, size_t *len,
                       bs_error *err) {
  *data = NULL;
  *len = 0;
  /* Neither read nor parsed when too large (a parse takes several times
   * the file's size): checked before reading, and while reading for a
   * file that grows. */
  struct stat sb;
  if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
      (unsigned long long)sb.st_size > (unsigned long long)BS__SVG_MAX_MIB
                                           << 20)
    return too_large(path, err);
  bs_status st = bs__read_regular(
      path, BS__OPEN_NOFOLLOW, (size_t)BS__SVG_MAX_MIB << 20, data, len, err);
  if (st) {
    free(*data);
    *data = NULL;
    return st == BS_ENOMEM   ? st
           : st == BS_ELIMIT ? too_large(path, err)
                             : bs_error_set(err, BS_EPLOT, path, 0,
                                            "cannot read gnuplot's SVG");
  }
  return BS_OK;
}

bs_status bs__svg_check(const char *path, bs_error *err) {
  char *data = NULL;
  size_t len = 0;
  bs_status st = bs__svg_read(path, &data, &len, err);
  if (!st)
    st = bs__svg_check_memory(path, data, len, err);
  free(data);
  return st;
}
