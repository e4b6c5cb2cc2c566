package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of a plan that one script call executes: the groups of one hash slot (all of them with
 * standalone or sentinel Redis), their keys, and the arguments of {@code admit.lua} and
 * {@code settle.lua} in those scripts' order.
 */
final class SlotCall {

    final int[] planIndexes;
    final Plan subPlan;
    final List<Object> keys;
    private final int[] hashIndex;
    private final int[] slotsIndex;
    private final int[] leasesIndex;
    private final String[] suffix;

    private SlotCall(Plan plan, List<Integer> indexes, List<GroupKeys> groupKeys) {
        planIndexes = indexes.stream().mapToInt(Integer::intValue).toArray();
        List<CounterGroup> groups = new ArrayList<>(planIndexes.length);
        for (int index : planIndexes) {
            groups.add(plan.group(index));
        }
        subPlan = new Plan(plan.requestId(), plan.model(), plan.pool(), groups, plan.leaseMillis(), plan.cost());
        Map<String, Integer> keyIndex = new LinkedHashMap<>();
        hashIndex = new int[planIndexes.length];
        slotsIndex = new int[planIndexes.length];
        leasesIndex = new int[planIndexes.length];
        suffix = new String[planIndexes.length];
        for (int i = 0; i < planIndexes.length; i++) {
            GroupKeys k = groupKeys.get(planIndexes[i]);
            hashIndex[i] = k.hash() == null ? 0 : keyIndex.computeIfAbsent(k.hash(), h -> keyIndex.size() + 1);
            slotsIndex[i] = k.slots() == null ? 0 : keyIndex.computeIfAbsent(k.slots(), h -> keyIndex.size() + 1);
            leasesIndex[i] = k.leases() == null ? 0 : keyIndex.computeIfAbsent(k.leases(), h -> keyIndex.size() + 1);
            suffix[i] = k.suffix();
        }
        keys = new ArrayList<>(keyIndex.size() + 1);
        keys.addAll(keyIndex.keySet());
        keys.add(keys.get(0) + ":req:" + plan.requestId());
    }

    /**
     * The calls of a plan, in the order of their first group: one for all groups, or with
     * {@code bySlot} one per cluster hash slot.
     */
    static List<SlotCall> of(Plan plan, String prefix, boolean bySlot) {
        List<GroupKeys> groupKeys = new ArrayList<>(plan.groups().size());
        for (CounterGroup group : plan.groups()) {
            groupKeys.add(GroupKeys.of(prefix, group));
        }
        Map<Integer, List<Integer>> bySlotIndexes = new LinkedHashMap<>();
        for (int i = 0; i < groupKeys.size(); i++) {
            int slot = bySlot ? HashSlot.ofTag(groupKeys.get(i).tag()) : 0;
            bySlotIndexes.computeIfAbsent(slot, s -> new ArrayList<>(4)).add(i);
        }
        List<SlotCall> calls = new ArrayList<>(bySlotIndexes.size());
        for (List<Integer> indexes : bySlotIndexes.values()) {
            calls.add(new SlotCall(plan, indexes, groupKeys));
        }
        return calls;
    }

    /** The key the call is routed by. */
    String routingKey() {
        return (String) keys.get(0);
    }

    Object[] admitArgs() {
        List<CounterGroup> groups = subPlan.groups();
        int model = subPlan.modelIndex() + 1;
        Object[] args = new Object[3 + groups.size() * 18];
        args[0] = subPlan.requestId();
        args[1] = Long.toString(subPlan.leaseMillis());
        args[2] = Integer.toString(groups.size());
        int a = 3;
        for (int i = 0; i < groups.size(); i++) {
            CounterGroup group = groups.get(i);
            a = windowArgs(args, a, i, group.window());
            Limits limits = group.limits();
            args[a++] = Long.toString(limits.requests());
            args[a++] = Long.toString(limits.tokens());
            args[a++] = Long.toString(limits.parallel());
            args[a++] = Long.toString(limits.micros());
            Enforcement enforcement = group.enforcement();
            args[a++] = switch (enforcement.mode()) {
                case ALWAYS -> "0";
                case WHEN_SATURATED -> "1";
                case TRACKED -> "2";
            };
            // Double.toString round-trips exactly, so Lua's tonumber compares against the same double.
            args[a++] = Double.toString(enforcement.threshold());
            args[a++] = Integer.toString(enforcement.mode() == Enforcement.Mode.WHEN_SATURATED ? model : 0);
            Increments add = group.increments();
            args[a++] = Long.toString(add.requests());
            args[a++] = Long.toString(add.tokens());
            args[a++] = Long.toString(add.micros());
            args[a++] = add.slot() ? "1" : "0";
        }
        return args;
    }

    Object[] settleArgs(Settlement settlement) {
        List<CounterGroup> groups = subPlan.groups();
        Object[] args = new Object[7 + groups.size() * 12];
        args[0] = subPlan.requestId();
        args[1] = Long.toString(subPlan.leaseMillis());
        args[2] = Integer.toString(groups.size());
        args[3] = Long.toString(settlement.tokens());
        args[4] = Long.toString(settlement.micros());
        args[5] = settlement.cancel() ? "1" : "0";
        args[6] = settlement.unanswered() ? "2" : settlement.late() ? "1" : "0";
        int a = 7;
        for (int i = 0; i < groups.size(); i++) {
            CounterGroup group = groups.get(i);
            a = windowArgs(args, a, i, group.window());
            Increments add = group.increments();
            args[a++] = Long.toString(add.requests());
            args[a++] = Long.toString(add.tokens());
            args[a++] = Long.toString(add.micros());
            args[a++] = group.countsTokens() ? "1" : "0";
            args[a++] = group.countsMoney() ? "1" : "0";
        }
        return args;
    }

    private int windowArgs(Object[] args, int a, int i, GroupWindow window) {
        args[a++] = Integer.toString(hashIndex[i]);
        args[a++] = Integer.toString(slotsIndex[i]);
        args[a++] = Integer.toString(leasesIndex[i]);
        args[a++] = suffix[i];
        args[a++] = Long.toString(window.millis());
        args[a++] = window.sliding() ? "1" : "0";
        args[a++] = Long.toString(window.periodEnd());
        return a;
    }
}
