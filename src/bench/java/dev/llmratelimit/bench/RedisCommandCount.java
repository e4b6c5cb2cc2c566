package dev.llmratelimit.bench;

import dev.llmratelimit.testsupport.RedisServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis commands filtered requests cost, as the server counts them ({@code INFO commandstats}
 * after {@code CONFIG RESETSTAT}) while one filter alone sends requests: what the filter sends, not
 * what its code says it sends. The statistics count the commands a script runs as well; those are
 * told apart by name (every command the store's scripts call), so what remains besides EVALSHA was
 * sent by a client.
 *
 * @param sent      commands other than EVALSHA that clients sent (a Redisson connection's PING, a
 *                  {@code SCRIPT LOAD} after a restart), calls by name
 * @param inScripts commands the scripts ran, in all
 * @param evalshaMicros the server's time in EVALSHA calls, in all (the scripts and the commands they ran)
 */
record RedisCommandCount(String server, int requests, int non2xx, long evalsha, Map<String, Long> sent, long inScripts,
                         long evalshaMicros) {

    private static final Set<String> SCRIPT_COMMANDS = scriptCommands("window.lua", "admit.lua", "settle.lua");

    /** Sends requests and answers how many of them were not 2xx. */
    interface Requests {
        int send(int count) throws InterruptedException;
    }

    static RedisCommandCount measure(RedisServer redis, String server, int requests, Requests send)
            throws InterruptedException {
        redis.call("CONFIG", "RESETSTAT");
        int non2xx = send.send(requests);
        String info = String.valueOf(redis.call("INFO", "commandstats"));
        Map<String, Long> calls = figures(info, "calls");
        long evalsha = calls.getOrDefault("evalsha", 0L);
        calls.remove("evalsha");
        calls.remove("config|resetstat");                       // ours, not the filter's
        long inScripts = 0;
        for (String command : SCRIPT_COMMANDS) {
            Long count = calls.remove(command);
            inScripts += count == null ? 0 : count;
        }
        return new RedisCommandCount(server, requests, non2xx, evalsha, calls, inScripts,
                figures(info, "usec").getOrDefault("evalsha", 0L));
    }

    /**
     * The commands these scripts of the Redis store call, lower case: {@code redis.call('NAME', ...)}, or
     * {@code call('NAME', ...)} through the local the scripts keep of it.
     */
    private static Set<String> scriptCommands(String... scripts) {
        Set<String> commands = new HashSet<>();
        Pattern call = Pattern.compile("(?:redis\\.|\\b)call\\('([A-Z]+)'");
        for (String script : scripts) {
            try (InputStream in = RedisCommandCount.class.getResourceAsStream("/dev/llmratelimit/store/redis/" + script)) {
                if (in == null) {
                    throw new IllegalStateException("No script " + script);
                }
                Matcher matcher = call.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                while (matcher.find()) {
                    commands.add(matcher.group(1).toLowerCase(Locale.ROOT));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return commands;
    }

    /**
     * One figure per command in {@code INFO commandstats}, whose lines read
     * {@code cmdstat_<name>:calls=<n>,usec=<n>,...}: {@code calls} or {@code usec}.
     */
    private static Map<String, Long> figures(String info, String figure) {
        Map<String, Long> figures = new TreeMap<>();
        for (String line : info.split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                int colon = line.indexOf(':');
                int start = line.indexOf(figure + "=", colon) + figure.length() + 1;
                int end = line.indexOf(',', start);
                figures.put(line.substring("cmdstat_".length(), colon),
                        Long.parseLong(line.substring(start, end < 0 ? line.length() : end)));
            }
        }
        return figures;
    }

    double evalshaPerRequest() {
        return evalsha / (double) requests;
    }

    /** Commands clients sent per request: EVALSHA and any other. */
    double sentPerRequest() {
        return (evalsha + sent.values().stream().mapToLong(Long::longValue).sum()) / (double) requests;
    }

    /** The most commands the scripts may run for one request with model limits alone. */
    static final int MOST_IN_SCRIPTS = 10;
    /** The same with the key's and the team's limits too. */
    static final int MOST_IN_SCRIPTS_WITH_CALLERS = 18;

    static void write(Report report, List<RedisCommandCount> counts) {
        report.heading("3b. Redis commands per request")
                .paragraph("Counted by redis-server itself: `CONFIG RESETSTAT`, then one filter on the Redis store "
                        + "serves the JSON requests (" + BenchSettings.HTTP_CONNECTIONS + " connections), then "
                        + "`INFO commandstats`. With model limits alone the plan holds the model and its pool; with "
                        + "caller limits it also holds the key (requests per window and parallel slots) and the "
                        + "team (tokens per window). Either way a request is one `admit.lua` before the call and one "
                        + "`settle.lua` after it. The statistics also count the commands a script runs; they are told "
                        + "apart by name (every command the store's scripts call) and shown on their own: work on the "
                        + "server, not round trips. Any other command was sent by a client (a Redisson connection's "
                        + "PING, a `SCRIPT LOAD` after a restart). The server's time in the scripts per request (its "
                        + "`usec` of EVALSHA, the commands they ran included) is the Redis CPU a request costs besides "
                        + "reading and writing its two calls: one Redis serves at most a second's worth of it per second.");
        List<List<String>> rows = new ArrayList<>();
        for (RedisCommandCount count : counts) {
            rows.add(List.of(count.server(), Integer.toString(count.requests()), Integer.toString(count.non2xx()),
                    Long.toString(count.evalsha()), Report.fixed(count.evalshaPerRequest(), 3),
                    count.sent().isEmpty() ? "none" : count.sent().toString(), Report.fixed(count.sentPerRequest(), 3),
                    Report.fixed(count.inScripts() / (double) count.requests(), 1),
                    Report.fixed(count.evalshaMicros() / (double) count.requests(), 1)));
        }
        report.table(List.of("server", "requests", "non-2xx", "EVALSHA", "EVALSHA per request", "other commands sent",
                "commands sent per request", "commands run in the scripts per request",
                "server us in the scripts per request"), rows);
        for (RedisCommandCount count : counts) {
            report.target(count.server() + ": 2 EVALSHA per request", count.evalsha() == 2L * count.requests(),
                    Report.fixed(count.evalshaPerRequest(), 3));
            int most = count.server().equals(HttpOverhead.REDIS) ? MOST_IN_SCRIPTS : MOST_IN_SCRIPTS_WITH_CALLERS;
            double inScripts = count.inScripts() / (double) count.requests();
            report.target(count.server() + ": at most " + most + " commands run in the scripts per request",
                    inScripts <= most, Report.fixed(inScripts, 1));
        }
        report.endTargets();
    }
}
