/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_writer.h - the one JSON writer of the Shoal tools
 *
 * The tools print their results as JSON for scripts and benches.  Written
 * by hand with printf, a string was not escaped (an interface name or a
 * file's counter name may hold a quote) and a number that was not finite
 * came out as "nan", which no parser reads.  This writer quotes every
 * string, writes NaN and the infinities as null and places the commas.
 *
 *	struct jw w;
 *
 *	jw_init(&w, stdout);
 *	jw_obj(&w, NULL, JW_LINES);	// one member a line
 *	jw_str(&w, "dev", name);
 *	jw_arr(&w, "bins", JW_INLINE);
 *	jw_u64(&w, NULL, n);		// an element has no key
 *	jw_end(&w);
 *	jw_end(&w);
 *	if (jw_finish(&w))		// balanced, written, newline
 *		...
 *
 * A member of an object takes a key, an element of an array NULL; a
 * misuse (a key in an array, none in an object, nesting deeper than
 * JW_DEPTH, an end too many) marks the writer failed, and jw_finish()
 * says so, as it does a write error.  Header only: each tool is one
 * translation unit.  No locking: one writer, one thread.
 */
#ifndef SHOAL_JSON_WRITER_H
#define SHOAL_JSON_WRITER_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#define JW_DEPTH 16

enum jw_layout {
	JW_INLINE,	/* {"a": 1, "b": 2} */
	JW_LINES,	/* each member on its own line, indented */
};

struct jw {
	FILE *f;
	unsigned int depth;		/* open containers */
	bool failed;
	bool array[JW_DEPTH];		/* this level is an array */
	bool lines[JW_DEPTH];		/* this level is JW_LINES */
	unsigned int members[JW_DEPTH];	/* written at this level */
};

static inline void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->failed = false;
	w->members[0] = 0;
}

static inline void jw_quote(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	fputc('"', w->f);
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '"':
		case '\\':
			fputc('\\', w->f);
			fputc(c, w->f);
			break;
		case '\n':
			fputs("\\n", w->f);
			break;
		case '\t':
			fputs("\\t", w->f);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(w->f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
			else
				fputc(c, w->f);
		}
	}
	fputc('"', w->f);
}

static inline void jw_indent(struct jw *w, unsigned int depth)
{
	fputc('\n', w->f);
	while (depth--)
		fputs("  ", w->f);
}

/* Before a value: the comma, the line break, the key */
static inline bool jw_member(struct jw *w, const char *key)
{
	unsigned int d = w->depth;

	if (w->failed)
		return false;
	if (d == 0) {
		/* the one top-level value */
		if (key || w->members[0]) {
			w->failed = true;
			return false;
		}
		w->members[0]++;
		return true;
	}
	if (!key != w->array[d]) {
		w->failed = true;
		return false;
	}
	if (w->members[d])
		fputc(',', w->f);
	if (w->lines[d])
		jw_indent(w, d);
	else if (w->members[d])
		fputc(' ', w->f);
	w->members[d]++;
	if (key) {
		jw_quote(w, key);
		fputs(": ", w->f);
	}
	return true;
}

static inline void jw_open(struct jw *w, const char *key, bool array,
			   enum jw_layout layout)
{
	if (w->depth + 1 >= JW_DEPTH) {
		w->failed = true;
		return;
	}
	if (!jw_member(w, key))
		return;
	fputc(array ? '[' : '{', w->f);
	w->depth++;
	w->array[w->depth] = array;
	w->lines[w->depth] = layout == JW_LINES;
	w->members[w->depth] = 0;
}

static inline void jw_obj(struct jw *w, const char *key, enum jw_layout layout)
{
	jw_open(w, key, false, layout);
}

static inline void jw_arr(struct jw *w, const char *key, enum jw_layout layout)
{
	jw_open(w, key, true, layout);
}

/* Close the innermost object or array */
static inline void jw_end(struct jw *w)
{
	unsigned int d = w->depth;

	if (w->failed)
		return;
	if (!d) {
		w->failed = true;
		return;
	}
	if (w->lines[d] && w->members[d])
		jw_indent(w, d - 1);
	fputc(w->array[d] ? ']' : '}', w->f);
	w->depth--;
}

static inline void jw_str(struct jw *w, const char *key, const char *s)
{
	if (jw_member(w, key)) {
		if (s)
			jw_quote(w, s);
		else
			fputs("null", w->f);
	}
}

static inline void jw_u64(struct jw *w, const char *key, unsigned long long v)
{
	if (jw_member(w, key))
		fprintf(w->f, "%llu", v);
}

static inline void jw_s64(struct jw *w, const char *key, long long v)
{
	if (jw_member(w, key))
		fprintf(w->f, "%lld", v);
}

/* @v with @decimals after the point (a negative count: %g); null if
 * it is not finite
 */
static inline void jw_num(struct jw *w, const char *key, double v, int decimals)
{
	if (!jw_member(w, key))
		return;
	if (!isfinite(v))
		fputs("null", w->f);
	else if (decimals < 0)
		fprintf(w->f, "%.15g", v);
	else
		fprintf(w->f, "%.*f", decimals, v);
}

static inline void jw_bool(struct jw *w, const char *key, bool v)
{
	if (jw_member(w, key))
		fputs(v ? "true" : "false", w->f);
}

static inline void jw_null(struct jw *w, const char *key)
{
	if (jw_member(w, key))
		fputs("null", w->f);
}

/* 0 when one whole value was written, its containers closed, and the
 * stream took it; -1 otherwise.  Ends the value with a newline.
 */
static inline int jw_finish(struct jw *w)
{
	if (w->failed || w->depth || !w->members[0])
		return -1;
	fputc('\n', w->f);
	return ferror(w->f) ? -1 : 0;
}

#endif /* SHOAL_JSON_WRITER_H */
