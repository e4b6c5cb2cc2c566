package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.GroupKind;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Where one counter group lives in Redis. Names are user input, so they are base64url-encoded: no
 * name can contain a hash tag's braces or reach another's key.
 *
 * <ul>
 *   <li>A model: the hash {@code <prefix>{<base64url(model)>}}, fields {@code r}, {@code t}; each of
 *       its pools is the fields {@code r:<pool>}, {@code t:<pool>} of the same hash (pool names are
 *       configured, never user input), so model and pools share one window and one slot.</li>
 *   <li>A caller scope: the hash {@code <prefix>{<letter>.<base64url(id)>}} (fields {@code r},
 *       {@code t}) and its parallel slots, the sorted set of the same key with {@code :s}: every
 *       caller under its own hash tag. The dot never occurs in base64url, so no caller tag is a
 *       model's.</li>
 *   <li>A budget: {@code <prefix>{b.<base64url(id)>}[:<base64url(member)>]:<base64url(period)>},
 *       fields {@code m} (spent) and {@code mr} (reserved): the period is part of the identity, so
 *       periods roll without a job. Its reservations, the sorted set of the same key with {@code :l}
 *       (member {@code <micro-dollars>:<request id>}, score its lease end), are swept at every
 *       decision on the budget, so a reservation never settled expires with its lease.</li>
 * </ul>
 * A scope's further windows (beside the configured one) are hashes of their own: the scope's hash
 * with {@code :w<window ms>}, under the same hash tag.
 * A request's marker is the first key of its script call with {@code :req:<request id>}.
 *
 * @param hash   the hash of the group's counters, {@code null} for a group without counters
 * @param slots  the sorted set of its parallel slots, {@code null} for a group without slots
 * @param leases the sorted set of its money reservations, {@code null} for a group without money
 * @param suffix the fields' suffix inside the hash
 * @param tag    the hash tag: groups with equal tags are in one cluster slot
 * @param activity the hash of when each pool of a work-conserving model last asked, per window
 *               ({@code <hash>:a}, field the pool's name); {@code null} for other groups
 */
record GroupKeys(String hash, String slots, String leases, String suffix, String tag, String activity) {

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    static GroupKeys of(String prefix, CounterGroup group) {
        String window = group.window().tag().isEmpty() ? "" : ":w" + group.window().tag();
        if (group.kind() == GroupKind.MODEL || group.kind() == GroupKind.POOL) {
            String key = modelKey(prefix, group.id());
            return new GroupKeys(key + window, null, null, group.kind() == GroupKind.POOL ? ":" + group.member() : "",
                    key.substring(prefix.length()), group.sharing() == null ? null : key + window + ":a");
        }
        String tag = "{" + group.kind().code() + "." + encode(group.id()) + "}";
        String base = prefix + tag;
        String hash = base;
        if (!group.member().isEmpty()) {
            hash += ":" + encode(group.member());
        }
        if (group.window().isPeriod()) {
            hash += ":" + encode(group.window().periodId());
        }
        hash += window;
        return new GroupKeys(group.window().counts() ? hash : null, group.limits().limitsParallel() ? base + ":s" : null,
                group.countsMoney() ? hash + ":l" : null, "", tag, null);
    }

    static String modelKey(String prefix, String model) {
        return prefix + "{" + encode(model) + "}";
    }

    private static String encode(String text) {
        return BASE64URL.encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
