package dev.llmratelimit.bench;

import dev.llmratelimit.testsupport.RedisServer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Redis commands filtered requests cost, as the server counts them ({@code INFO commandstats}
 * after {@code CONFIG RESETSTAT}) while one filter alone sends requests: what the filter sends, not
 * what its code says it sends.
 *
 * @param others commands other than EVALSHA and their calls (a Redisson connection's background
 *               PING, a {@code SCRIPT LOAD} after a restart), by name
 */
record RedisCommandCount(String server, int requests, int non2xx, long evalsha, Map<String, Long> others) {

    /** Sends requests and answers how many of them were not 2xx. */
    interface Requests {
        int send(int count) throws InterruptedException;
    }

    static RedisCommandCount measure(RedisServer redis, String server, int requests, Requests send)
            throws InterruptedException {
        redis.call("CONFIG", "RESETSTAT");
        int non2xx = send.send(requests);
        Map<String, Long> calls = calls(String.valueOf(redis.call("INFO", "commandstats")));
        long evalsha = calls.getOrDefault("evalsha", 0L);
        calls.remove("evalsha");
        calls.remove("config|resetstat");                       // ours, not the filter's
        return new RedisCommandCount(server, requests, non2xx, evalsha, calls);
    }

    /** Calls per command in {@code INFO commandstats}: lines {@code cmdstat_<name>:calls=<n>,usec=...}. */
    private static Map<String, Long> calls(String info) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                int colon = line.indexOf(':');
                int comma = line.indexOf(',', colon);
                calls.put(line.substring("cmdstat_".length(), colon),
                        Long.parseLong(line.substring(colon + 1 + "calls=".length(), comma)));
            }
        }
        return calls;
    }

    double evalshaPerRequest() {
        return evalsha / (double) requests;
    }

    double commandsPerRequest() {
        return (evalsha + others.values().stream().mapToLong(Long::longValue).sum()) / (double) requests;
    }

    static void write(Report report, List<RedisCommandCount> counts) {
        report.heading("3b. Redis commands per request")
                .paragraph("Counted by redis-server itself: `CONFIG RESETSTAT`, then one filter on the Redis store "
                        + "serves the JSON requests (" + BenchSettings.HTTP_CONNECTIONS + " connections), then "
                        + "`INFO commandstats`. With model limits alone the plan holds the model and its pool; with "
                        + "caller limits it also holds the key (requests per window and parallel slots) and the "
                        + "team (tokens per window). Either way a request is one `admit.lua` before the call and one "
                        + "`settle.lua` after it. Other commands are Redisson's background traffic, not the requests'.");
        List<List<String>> rows = new ArrayList<>();
        for (RedisCommandCount count : counts) {
            rows.add(List.of(count.server(), Integer.toString(count.requests()), Integer.toString(count.non2xx()),
                    Long.toString(count.evalsha()), Report.fixed(count.evalshaPerRequest(), 3),
                    Report.fixed(count.commandsPerRequest(), 3), count.others().isEmpty() ? "none" : count.others().toString()));
        }
        report.table(List.of("server", "requests", "non-2xx", "EVALSHA", "EVALSHA per request", "all commands per request",
                "other commands"), rows);
        for (RedisCommandCount count : counts) {
            report.target(count.server() + ": 2 EVALSHA per request", count.evalsha() == 2L * count.requests(),
                    Report.fixed(count.evalshaPerRequest(), 3));
        }
        report.endTargets();
    }
}
