// SPDX-License-Identifier: MIT
/* Time Quartz's CronExpression (Debian's libquartz2-java) on the
 * expression set of bench/bench_cron.c: microseconds per parse and per
 * chained getNextValidTimeAfter, each call from the previous occurrence,
 * restarting every CHAIN_LEN calls, with the case's TimeZone set; the
 * median of REPEATS runs after a warm-up long enough for the JIT to
 * compile the paths timed. Compiled by scripts/bench.sh with javac
 * against the quartz jar of /usr/share/java.
 *
 * Output: a table, then per case the tab-separated line
 *
 *     bench  quartz  EXPR  ZONE  PARSE_US  NEXT_US  DIGEST  CONFIG
 *
 * DIGEST is COUNT:SUM of the occurrences (seconds since the epoch) of
 * DIGEST_LEN chained calls from each of DIGEST_ORIGINS, as bench_cron.c
 * computes it. Quartz wants seconds first and a '?' in day of month or of
 * week, and numbers days of the week from Sunday = 1: QUARTZ spells each
 * expression so. Quartz searches no further than 100 years ahead, so a
 * chain of 0 0 29 2 * restarts sooner than in the other peers. */
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import org.quartz.CronExpression;

public final class QuartzBench {
    static final int REPEATS = 7, PARSE_CALLS = 5000, NEXT_CALLS = 20000;
    static final int WARMUP_ROUNDS = 3, CHAIN_LEN = 300, DIGEST_LEN = 20;
    static final long ORIGIN = 1735689600L;
    static final long[] DIGEST_ORIGINS = {
        1735689600L, 1741503300L, 1743296100L, 1761440100L, 1762062900L};
    static final String[][] QUARTZ = {
        {"* * * * *", "0 * * * * ?"},
        {"*/5 * * * *", "0 */5 * * * ?"},
        {"0 9 * * 1-5", "0 0 9 ? * MON-FRI"},
        {"0 0 29 2 *", "0 0 0 29 2 ?"},
        {"*/30 * * * * *", "*/30 * * * * ?"},
        {"0 0 9 * * *", "0 0 9 * * ?"},
    };
    static final String[] ZONES = {"UTC", "Europe/Paris", "America/New_York"};
    static final String[][] EXTRA = {
        {"15 10 L * ?", "0 15 10 L * ?", "UTC"},
        {"0 12 * * 5#3", "0 0 12 ? * 6#3", "UTC"},
    };
    static long sink;

    interface Body {
        void run(int calls) throws Exception;
    }

    static double microsPerCall(int calls, Body body) throws Exception {
        for (int w = 0; w < WARMUP_ROUNDS; w++)
            body.run(calls);
        double[] runs = new double[REPEATS];
        for (int r = 0; r < REPEATS; r++) {
            long start = System.nanoTime();
            body.run(calls);
            runs[r] = (System.nanoTime() - start) / 1000.0 / calls;
        }
        Arrays.sort(runs);
        return runs[REPEATS / 2];
    }

    static CronExpression parse(String spelled, TimeZone tz) throws Exception {
        CronExpression c = new CronExpression(spelled);
        c.setTimeZone(tz);
        return c;
    }

    static String digest(CronExpression c) {
        long count = 0, sum = 0;
        for (long o : DIGEST_ORIGINS) {
            Date t = new Date(o * 1000);
            for (int i = 0; i < DIGEST_LEN; i++) {
                t = c.getNextValidTimeAfter(t);
                if (t == null)
                    break;
                sum += t.getTime() / 1000;
                count++;
            }
        }
        return count + ":" + sum;
    }

    static String runCase(String expr, String spelled, String zone) throws Exception {
        TimeZone tz = TimeZone.getTimeZone(zone);
        CronExpression c = parse(spelled, tz);
        double parseUs = microsPerCall(PARSE_CALLS, calls -> {
            for (int i = 0; i < calls; i++)
                sink += parse(spelled, tz).hashCode();
        });
        Date start = new Date(ORIGIN * 1000);
        double nextUs = microsPerCall(NEXT_CALLS, calls -> {
            Date t = start;
            for (int i = 0; i < calls; i++) {
                if (i % CHAIN_LEN == 0)
                    t = start;
                t = c.getNextValidTimeAfter(t);
                if (t == null)
                    t = start;
            }
            sink += t.getTime();
        });
        System.out.printf("%-18s %-18s %9.2f %9.3f%n", expr, zone, parseUs, nextUs);
        return String.format("bench\tquartz\t%s\t%s\t%.3f\t%.3f\t%s\t%s", expr, zone,
                             parseUs, nextUs, digest(c), "TimeZone set, " + spelled);
    }

    public static void main(String[] args) throws Exception {
        List<String> lines = new ArrayList<>();
        System.out.printf("%-18s %-18s %9s %9s%n", "expression", "zone", "parse us", "next us");
        for (String[] e : QUARTZ)
            for (String z : ZONES)
                lines.add(runCase(e[0], e[1], z));
        for (String[] x : EXTRA)
            lines.add(runCase(x[0], x[1], x[2]));
        System.out.println(String.join("\n", lines));
    }
}
