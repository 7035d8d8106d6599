// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/lib/json_writer.h, the tools' JSON writer: the exact
 * text of nested objects and arrays in both layouts, strings escaped
 * (quotes, backslashes, control bytes), numbers that are not finite as
 * null, and every misuse (a key in an array, none in an object, an end
 * too many, a container left open, a second top-level value, nesting too
 * deep) reported by jw_finish() instead of written as broken JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"
#include "unit.h"

static char *buf;
static size_t len;

static struct jw *start(struct jw *w)
{
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		perror("open_memstream");
		exit(2);
	}
	jw_init(w, f);
	return w;
}

/* jw_finish()'s result; the text written is in buf */
static int finish(struct jw *w)
{
	int rc = jw_finish(w);

	fclose(w->f);
	return rc;
}

/* buf on one TAP line: its newlines shown as | */
static const char *shown(void)
{
	char *p;

	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = '|';
	return buf;
}

static void check_text(struct jw *w, const char *want, const char *what)
{
	int rc = finish(w);
	bool same = !rc && !strcmp(buf, want);

	CHECK(same, "%s: %s", what, shown());
	free(buf);
}

static void check_refused(struct jw *w, const char *what)
{
	CHECK(finish(w) == -1, "%s: refused", what);
	free(buf);
}

static void test_inline(void)
{
	struct jw w;

	start(&w);
	jw_obj(&w, NULL, JW_INLINE);
	jw_u64(&w, "sent", 18446744073709551615ULL);
	jw_s64(&w, "lead", -3);
	jw_num(&w, "rate", 2.5, 1);
	jw_num(&w, "load", 0.8, -1);
	jw_bool(&w, "up", true);
	jw_null(&w, "max");
	jw_arr(&w, "bins", JW_INLINE);
	jw_u64(&w, NULL, 1);
	jw_u64(&w, NULL, 2);
	jw_end(&w);
	jw_obj(&w, "empty", JW_INLINE);
	jw_end(&w);
	jw_end(&w);
	check_text(&w,
		   "{\"sent\": 18446744073709551615, \"lead\": -3, \"rate\": 2.5, \"load\": 0.8, \"up\": true, \"max\": null, \"bins\": [1, 2], \"empty\": {}}\n",
		   "one line");
}

static void test_lines(void)
{
	struct jw w;

	start(&w);
	jw_obj(&w, NULL, JW_LINES);
	jw_str(&w, "proto", "sird");
	jw_arr(&w, "buckets", JW_LINES);
	jw_obj(&w, NULL, JW_INLINE);
	jw_u64(&w, "count", 4);
	jw_end(&w);
	jw_end(&w);
	jw_arr(&w, "none", JW_LINES);
	jw_end(&w);
	jw_end(&w);
	check_text(&w, "{\n  \"proto\": \"sird\",\n  \"buckets\": [\n"
		   "    {\"count\": 4}\n  ],\n  \"none\": []\n}\n",
		   "one member a line, an empty one closed at once");
}

static void test_escapes(void)
{
	struct jw w;

	start(&w);
	jw_obj(&w, NULL, JW_INLINE);
	jw_str(&w, "dev", "a\"b\\c\nd\te\x01\x1f\x7f");
	jw_str(&w, "k\"ey", NULL);
	jw_str(&w, "utf8", "\xc3\xa9");
	jw_end(&w);
	check_text(&w,
		   "{\"dev\": \"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\\u007f\", \"k\\\"ey\": null, \"utf8\": \"\xc3\xa9\"}\n",
		   "strings and keys escaped, a NULL string null, UTF-8 kept");
}

static void test_not_finite(void)
{
	struct jw w;

	start(&w);
	jw_arr(&w, NULL, JW_INLINE);
	jw_num(&w, NULL, NAN, 1);
	jw_num(&w, NULL, INFINITY, -1);
	jw_num(&w, NULL, -INFINITY, 3);
	jw_num(&w, NULL, 1e308 * 10, 0);
	jw_end(&w);
	check_text(&w, "[null, null, null, null]\n",
		   "NaN and the infinities written as null");
}

static void test_misuse(void)
{
	struct jw w;
	int i;

	start(&w);
	jw_obj(&w, NULL, JW_INLINE);
	jw_u64(&w, NULL, 1);
	jw_end(&w);
	check_refused(&w, "a member of an object without a key");

	start(&w);
	jw_arr(&w, NULL, JW_INLINE);
	jw_u64(&w, "k", 1);
	jw_end(&w);
	check_refused(&w, "an element of an array with a key");

	start(&w);
	jw_obj(&w, NULL, JW_INLINE);
	jw_end(&w);
	jw_end(&w);
	check_refused(&w, "an end too many");

	start(&w);
	jw_obj(&w, NULL, JW_INLINE);
	jw_arr(&w, "a", JW_INLINE);
	jw_end(&w);
	check_refused(&w, "an object left open");

	start(&w);
	jw_u64(&w, NULL, 1);
	jw_u64(&w, NULL, 2);
	check_refused(&w, "two top-level values");

	start(&w);
	check_refused(&w, "nothing written");

	start(&w);
	jw_u64(&w, "top", 1);
	check_refused(&w, "a key on the top-level value");

	start(&w);
	for (i = 0; i < JW_DEPTH; i++)
		jw_arr(&w, NULL, JW_INLINE);
	for (i = 0; i < JW_DEPTH; i++)
		jw_end(&w);
	check_refused(&w, "nesting deeper than JW_DEPTH");

	start(&w);
	for (i = 0; i < JW_DEPTH - 1; i++)
		jw_arr(&w, NULL, JW_INLINE);
	for (i = 0; i < JW_DEPTH - 1; i++)
		jw_end(&w);
	CHECK(!finish(&w), "JW_DEPTH - 1 levels nest: %s", shown());
	free(buf);
}

static void test_write_error(void)
{
	struct jw w;
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		CHECK(0, "cannot open /dev/full");
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	jw_init(&w, f);
	jw_str(&w, NULL, "lost");
	CHECK(jw_finish(&w) == -1, "a stream that takes nothing: refused");
	fclose(f);
}

int main(void)
{
	test_inline();
	test_lines();
	test_escapes();
	test_not_finite();
	test_misuse();
	test_write_error();
	return unit_done();
}
