// SPDX-License-Identifier: GPL-2.0
/*
 * workloads.c - shoal-perf's message-size distributions and how a size is
 * drawn from one.
 */

#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "workloads.h"

/*
 * Message-size workloads: the five of the Homa paper (Montazeri et al.,
 * "Homa: A Receiver-Driven Low-Latency Transport Protocol Using Network
 * Priorities", SIGCOMM 2018, Fig. 1), which SIRD (spec section 4.3) uses
 * as WKa = W3, WKb = W4, WKc = W5:
 *
 *   W1  Facebook memcached (ETC)           mean   189 B, max 100 KB
 *   W2  search application at Google       mean   442 B, max 3.5 MB
 *   W3  all Google datacenter RPCs         mean  2928 B, max 15.2 MB
 *   W4  Facebook Hadoop                    mean 127.8 KB, max 10 MB
 *   W5  web search (DCTCP, pFabric)        mean 2.56 MB, max 29.4 MB
 *
 * The paper publishes the distributions as figures; its authors publish
 * them as point tables (HomaModule util/dist.cc, 150-840 points each), and
 * the means above are those tables'.  The tables below are ours: a subset
 * of those points, one kept wherever the cumulative fraction has grown by
 * 2% or the size by half since the last kept point, the largest always
 * kept (W1: the point at 91603 B written as 0.9999997 rather than 1).
 * Between two points a size is drawn log-uniformly.  Exact published
 * points are not available for every size, so each table's own mean
 * differs from the published one: W1 188 B (-0.5%), W2 428 B (-3%),
 * W3 2929 B (0%), W4 122.4 KB (-4%), W5 2.55 MB (-0.7%).  shoal-perf
 * computes the mean of the table it samples and sets the arrival rate
 * from it, so the offered load is exact for the distribution drawn.
 * Below the first point there is no mass: the first point's fraction is
 * the probability of exactly its size.
 */

static const struct cdf_pt w1_cdf[] = {
	{ 8, 0.310940 }, { 11, 0.417570 }, { 14, 0.441550 }, { 15, 0.470000 },
	{ 23, 0.490214 }, { 32, 0.510462 }, { 41, 0.531400 },
	{ 53, 0.553801 }, { 65, 0.576583 }, { 77, 0.598563 },
	{ 89, 0.618602 }, { 103, 0.640148 }, { 120, 0.663085 },
	{ 139, 0.687238 }, { 156, 0.707277 }, { 175, 0.727789 },
	{ 197, 0.748599 }, { 222, 0.769509 }, { 249, 0.790308 },
	{ 280, 0.810777 }, { 324, 0.835565 }, { 376, 0.859087 },
	{ 435, 0.880984 }, { 518, 0.904717 }, { 618, 0.925372 },
	{ 758, 0.945424 }, { 1015, 0.966837 }, { 1529, 0.984984 },
	{ 2303, 0.993830 }, { 3467, 0.997657 }, { 5221, 0.999163 },
	{ 7861, 0.999714 }, { 11837, 0.999905 }, { 17822, 0.999969 },
	{ 26835, 0.999990 }, { 40406, 0.999997 }, { 60838, 0.999999 },
	{ 91603, 0.9999997 }, { 100000, 1.000000 }
};

static const struct cdf_pt w2_cdf[] = {
	{ 8, 0.170108 }, { 32, 0.189008 }, { 36, 0.216494 }, { 40, 0.243979 },
	{ 46, 0.271465 }, { 53, 0.298950 }, { 64, 0.326436 },
	{ 98, 0.337123 }, { 142, 0.366130 }, { 160, 0.390558 },
	{ 183, 0.414985 }, { 213, 0.439412 }, { 256, 0.463840 },
	{ 269, 0.508496 }, { 284, 0.553152 }, { 301, 0.597808 },
	{ 320, 0.642464 }, { 341, 0.687120 }, { 366, 0.731776 },
	{ 394, 0.776432 }, { 427, 0.821088 }, { 465, 0.865745 },
	{ 512, 0.910401 }, { 683, 0.934255 }, { 1024, 0.958110 },
	{ 1575, 0.974141 }, { 2409, 0.985305 }, { 3724, 0.993892 },
	{ 5851, 0.997184 }, { 9102, 0.998520 }, { 14895, 0.998854 },
	{ 23406, 0.999045 }, { 36409, 0.999182 }, { 59578, 0.999328 },
	{ 93623, 0.999662 }, { 145636, 0.999892 }, { 238313, 0.999965 },
	{ 374491, 0.999980 }, { 573085, 0.999984 }, { 912974, 0.999991 },
	{ 1644453, 0.999997 }, { 3529904, 1.000000 }
};

static const struct cdf_pt w3_cdf[] = {
	{ 8, 0.064883 }, { 32, 0.097324 }, { 40, 0.120503 }, { 53, 0.143681 },
	{ 70, 0.187988 }, { 77, 0.220705 }, { 85, 0.253422 },
	{ 96, 0.286139 }, { 110, 0.318856 }, { 128, 0.351573 },
	{ 146, 0.388155 }, { 171, 0.424737 }, { 205, 0.461319 },
	{ 256, 0.497901 }, { 268, 0.523994 }, { 282, 0.550086 },
	{ 296, 0.576179 }, { 313, 0.602272 }, { 331, 0.628365 },
	{ 352, 0.654457 }, { 375, 0.680550 }, { 402, 0.706643 },
	{ 433, 0.732736 }, { 469, 0.758828 }, { 512, 0.784921 },
	{ 597, 0.807286 }, { 717, 0.829652 }, { 896, 0.852017 },
	{ 1152, 0.873347 }, { 1536, 0.893641 }, { 2286, 0.914298 },
	{ 3511, 0.930606 }, { 5291, 0.948211 }, { 8192, 0.964309 },
	{ 12440, 0.978231 }, { 18674, 0.986094 }, { 28471, 0.989540 },
	{ 43067, 0.991767 }, { 65536, 0.993256 }, { 99130, 0.995881 },
	{ 148716, 0.997443 }, { 224152, 0.998229 }, { 337042, 0.998918 },
	{ 507697, 0.999464 }, { 765759, 0.999662 }, { 1160440, 0.999783 },
	{ 1767905, 0.999864 }, { 2693059, 0.999917 }, { 4135977, 0.999952 },
	{ 6309051, 0.999975 }, { 9710291, 0.999990 }, { 15158197, 1.000000 }
};

static const struct cdf_pt w4_cdf[] = {
	{ 53, 0.000740 }, { 81, 0.005920 }, { 130, 0.010400 },
	{ 199, 0.014150 }, { 259, 0.035700 }, { 303, 0.060550 },
	{ 310, 0.086200 }, { 318, 0.111850 }, { 326, 0.137500 },
	{ 345, 0.163540 }, { 365, 0.189580 }, { 395, 0.210760 },
	{ 435, 0.231180 }, { 463, 0.251630 }, { 491, 0.283420 },
	{ 513, 0.322460 }, { 537, 0.361500 }, { 561, 0.400540 },
	{ 587, 0.439580 }, { 607, 0.464860 }, { 638, 0.487900 },
	{ 671, 0.510940 }, { 707, 0.534350 }, { 743, 0.554420 },
	{ 800, 0.576200 }, { 929, 0.596750 }, { 1130, 0.617100 },
	{ 1385, 0.637160 }, { 1611, 0.659100 }, { 2517, 0.677490 },
	{ 3861, 0.686790 }, { 5887, 0.697770 }, { 9012, 0.709500 },
	{ 13741, 0.713400 }, { 20952, 0.717300 }, { 31946, 0.721200 },
	{ 40382, 0.741660 }, { 44804, 0.762480 }, { 47435, 0.782520 },
	{ 49813, 0.804840 }, { 64132, 0.825260 }, { 76416, 0.847940 },
	{ 80903, 0.868730 }, { 103313, 0.889430 }, { 139679, 0.909820 },
	{ 197911, 0.930300 }, { 273075, 0.950710 }, { 426666, 0.960940 },
	{ 643946, 0.966720 }, { 1002039, 0.973030 }, { 1559267, 0.979540 },
	{ 2527289, 0.988300 }, { 3997329, 0.992200 }, { 6322443, 0.996100 },
	{ 10000000, 1.000000 }
};

static const struct cdf_pt w5_cdf[] = {
	{ 1430, 0.025000 }, { 2860, 0.050000 }, { 4290, 0.075000 },
	{ 5720, 0.100000 }, { 7150, 0.125000 }, { 8580, 0.150000 },
	{ 13230, 0.171429 }, { 17640, 0.192857 }, { 20580, 0.216667 },
	{ 23520, 0.250000 }, { 26460, 0.283333 }, { 29400, 0.307143 },
	{ 33810, 0.328571 }, { 38220, 0.350000 }, { 42630, 0.371429 },
	{ 47040, 0.392857 }, { 51450, 0.413000 }, { 57330, 0.439000 },
	{ 63210, 0.465000 }, { 69090, 0.491000 }, { 74970, 0.517000 },
	{ 91140, 0.537875 }, { 124950, 0.558000 }, { 158760, 0.578125 },
	{ 192570, 0.598250 }, { 289590, 0.611985 }, { 451290, 0.632584 },
	{ 608580, 0.652622 }, { 765870, 0.672659 }, { 942270, 0.695131 },
	{ 1152480, 0.717568 }, { 1372980, 0.740090 }, { 1593480, 0.762613 },
	{ 1813980, 0.785135 }, { 2180010, 0.807500 }, { 2768010, 0.827500 },
	{ 3356010, 0.847500 }, { 3944010, 0.867500 }, { 4532010, 0.887500 },
	{ 10291470, 0.902505 }, { 14701470, 0.925006 },
	{ 19111470, 0.947506 }, { 23521470, 0.970007 },
	{ 27931470, 0.992507 }, { 29400000, 1.000000 }
};


#define WL(nm, al, src, t) { nm, al, src, t, sizeof(t) / sizeof(t[0]) }
const struct workload workloads[] = {
	WL("W1", NULL, "Facebook memcached (ETC)", w1_cdf),
	WL("W2", NULL, "search application at Google", w2_cdf),
	WL("W3", "WKa", "all Google datacenter RPCs", w3_cdf),
	WL("W4", "WKb", "Facebook Hadoop", w4_cdf),
	WL("W5", "WKc", "web search (DCTCP)", w5_cdf),
};

const size_t n_workloads = sizeof(workloads) / sizeof(workloads[0]);

const struct workload *workload_find(const char *name)
{
	size_t i;

	for (i = 0; i < n_workloads; i++) {
		if (!strcasecmp(name, workloads[i].name) ||
		    (workloads[i].alias && !strcasecmp(name, workloads[i].alias)))
			return &workloads[i];
	}
	return NULL;
}

uint32_t workload_sample(const struct workload *w, double u)
{
	const struct cdf_pt *p = w->pts;
	double t, a, b;
	int i;

	if (u <= p[0].cdf)
		return p[0].size;
	for (i = 1; i < w->n - 1 && p[i].cdf < u; i++)
		;
	if (p[i].cdf <= p[i - 1].cdf)
		return p[i].size;
	t = (u - p[i - 1].cdf) / (p[i].cdf - p[i - 1].cdf);
	if (t > 1)
		t = 1;
	a = p[i - 1].size;
	b = p[i].size;
	return (uint32_t)llround(a * exp(t * log(b / a)));
}

double workload_mean(const struct workload *w)
{
	const struct cdf_pt *p = w->pts;
	double m;
	int i;

	m = p[0].size * p[0].cdf;
	for (i = 1; i < w->n; i++) {
		double a = p[i - 1].size, b = p[i].size;
		double d = p[i].cdf - p[i - 1].cdf;

		m += d * (b > a ? (b - a) / log(b / a) : b);
	}
	return m;
}

uint32_t workload_max(const struct workload *w)
{
	return w->pts[w->n - 1].size;
}
