/* libxml2, loaded when the first SVG is checked (plotsafe.c, svgmin.c).
 *
 * libxml2 brings ICU, libstdc++, liblzma and zlib with it: thirteen shared
 * objects and about 2 700 relocations, which cost a process that never
 * draws a chart (compare, check, --help, every measuring process of `run`)
 * more than twice what the rest of its start takes. So benchsite is not
 * linked with it: the library named by its soname, recorded when the build
 * found libxml2, is opened on first use and the few functions the SVG
 * check and the compaction call are looked up in it. Private. */
#ifndef BENCHSITE_XMLLOAD_H
#define BENCHSITE_XMLLOAD_H

#include "benchsite/error.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>

#ifdef LIBXML_THREAD_ALLOC_ENABLED
/* xmlFree is then a per-thread slot behind __xmlFree(), not a variable. */
#error "libxml2 built with per-thread allocators: look up __xmlFree instead"
#endif

/* X(name): every libxml2 symbol benchsite uses, each declared by libxml2's
 * headers (so a wrong type does not compile). xmlFree is a variable (the
 * library's free function): its entry holds the variable's address. */
#define BS__XML_SYMBOLS(X)                                                     \
  X(xmlInitParser)                                                             \
  X(xmlCreateMemoryParserCtxt)                                                 \
  X(xmlCtxtUseOptions)                                                         \
  X(xmlParseDocument)                                                          \
  X(xmlFreeParserCtxt)                                                         \
  X(xmlFreeEnumeration)                                                        \
  X(xmlReadMemory)                                                             \
  X(xmlDocGetRootElement)                                                      \
  X(xmlDocDumpMemory)                                                          \
  X(xmlFreeDoc)                                                                \
  X(xmlUnlinkNode)                                                             \
  X(xmlFreeNode)                                                               \
  X(xmlAddChild)                                                               \
  X(xmlRemoveProp)                                                             \
  X(xmlGetNoNsProp)                                                            \
  X(xmlSetProp)                                                                \
  X(xmlAddPrevSibling)                                                         \
  X(xmlFree)

/* The table: bs__xml.xmlReadMemory(...) and so on; (*bs__xml.xmlFree)(p).
 * Filled once by bs__xml_load; read only after it returned BS_OK. */
typedef struct bs__xml_api {
#define BS__XML_FIELD(name) __typeof__(name) *(name);
  BS__XML_SYMBOLS(BS__XML_FIELD)
#undef BS__XML_FIELD
} bs__xml_api;

extern bs__xml_api bs__xml;

/* The soname opened ("libxml2.so.2"), as the build recorded it. */
const char *bs__xml_soname(void);

/* Loads libxml2 the first time it is called in the process (from any
 * thread; later calls only return the first one's result) and calls
 * xmlInitParser. BS_OK, or BS_EPLOT with a message that names the library,
 * why it could not be loaded and what needs it (the same message on every
 * call). libxml2 stays loaded until the process ends. */
bs_status bs__xml_load(bs_error *err);

/* Opens the library `soname` and looks up every symbol into *api, without
 * touching bs__xml: BS_OK, or BS_EPLOT with the message bs__xml_load gives.
 * The library stays open either way. For bs__xml_load and the tests. */
bs_status bs__xml_open(const char *soname, bs__xml_api *api, bs_error *err);

#endif
