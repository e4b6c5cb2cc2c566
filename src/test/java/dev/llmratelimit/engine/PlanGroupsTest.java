package dev.llmratelimit.engine;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What stores compile for a list of counters is kept per store and shared by every list of the same
 * counters: lists that differ in increments, and lists joined from such lists.
 */
class PlanGroupsTest {

    private static final Object MEMORY = new Object();
    private static final Object REDIS = new Object();
    private static final GroupWindow MINUTE = GroupWindow.rolling(60_000, false);

    private static CounterGroup group(GroupKind kind, String id, long adds) {
        return new CounterGroup(kind, id, "", MINUTE, new Limits(100, 1000, Limits.NONE, Limits.NONE),
                Enforcement.ALWAYS, new Increments(1, adds, 0, false));
    }

    private static PlanGroups model() {
        return PlanGroups.of(List.of(group(GroupKind.MODEL, "m", 0)));
    }

    private static PlanGroups budgets() {
        return PlanGroups.of(List.of(group(GroupKind.BUDGET, "t:team-a", 0), group(GroupKind.BUDGET, "k:sk-1", 0)));
    }

    /** The list with every group adding {@code tokens}: the same counters. */
    private static PlanGroups adding(PlanGroups groups, long tokens) {
        CounterGroup[] replaced = new CounterGroup[groups.size()];
        for (int i = 0; i < replaced.length; i++) {
            replaced[i] = groups.get(i).withIncrements(new Increments(1, tokens, 0, false));
        }
        return groups.replacing(replaced);
    }

    @Test
    void twoStoresKeepWhatEachCompiledOnOneList() {
        PlanGroups groups = model();
        groups.compile(MEMORY, "cells");
        groups.compile(REDIS, "layouts");
        assertThat(groups.compiled(MEMORY)).isEqualTo("cells");
        assertThat(groups.compiled(REDIS)).isEqualTo("layouts");
        assertThat(adding(groups, 7).compiled(MEMORY)).as("the same counters").isEqualTo("cells");
        assertThat(model().compiled(MEMORY)).as("another list of its own").isNull();
    }

    @Test
    void listsJoinedFromTheSameTwoListsShareWhatWasCompiled() {
        PlanGroups model = model();
        PlanGroups budgets = budgets();
        PlanGroups first = PlanGroups.concat(model, budgets);
        first.compile(MEMORY, "cells");

        PlanGroups next = PlanGroups.concat(adding(model, 40), adding(budgets, 160));
        assertThat(next.compiled(MEMORY)).isEqualTo("cells");
        assertThat(PlanGroups.concat(model, budgets()).compiled(MEMORY)).as("other budget counters").isNull();
        assertThat(PlanGroups.concat(model(), budgets).compiled(MEMORY)).as("other model counters").isNull();
        assertThat(PlanGroups.concat(List.copyOf(model), budgets).compiled(MEMORY)).as("not a plan list").isNull();
    }

    @Test
    void aJoinedListKnowsItsPartsAlsoWithOtherIncrements() {
        PlanGroups joined = PlanGroups.concat(model(), budgets());
        assertThat(joined.head()).hasSize(1);
        assertThat(joined.tail()).extracting(CounterGroup::id).containsExactly("t:team-a", "k:sk-1");

        CounterGroup[] replaced = new CounterGroup[3];
        replaced[2] = joined.get(2).withIncrements(new Increments(0, 0, 160, false));
        PlanGroups replacedOnce = joined.replacing(replaced);
        assertThat(replacedOnce.head()).as("nothing of it replaced").isSameAs(joined.head());
        assertThat(replacedOnce.tail().get(0)).isSameAs(joined.tail().get(0));
        assertThat(replacedOnce.tail().get(1).increments().micros()).isEqualTo(160);
        assertThat(PlanGroups.concat(model(), budgets()).head()).isNotNull();
        assertThat(model().head()).isNull();
    }
}
