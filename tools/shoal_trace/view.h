/* shoal-trace view (view.c): trace.json as a self-contained HTML page. */
#ifndef SHOAL_TRACE_VIEW_H
#define SHOAL_TRACE_VIEW_H

/* Writes html_path from json_path; 0 on success, else 1 (said on stderr). */
int shoal_trace_view(const char *json_path, const char *html_path);

#endif
