package dev.llmratelimit.identity;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.RateLimit;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.identity.StaticCallerResolverTest.named;
import static org.assertj.core.api.Assertions.assertThat;

class DefaultCallerResolverTest {

    private static final Map<String, String> STATIC_MAPPING = Map.of(
            "llm.ratelimit.principals.alice.priority", "dev",
            "llm.ratelimit.principals.alice.team", "team-a",
            "llm.ratelimit.teams.team-a.priority", "prod",
            "llm.ratelimit.teams.team-x.priority", "batch");

    private static final long DAY = 86_400_000;

    private final CallerResolver resolver = CallerResolvers.create(STATIC_MAPPING);

    private static TestJwt jwt(String name, Object... claims) {
        Map<String, Object> map = new HashMap<>();
        for (int i = 0; i < claims.length; i += 2) {
            map.put((String) claims[i], claims[i + 1]);
        }
        return new TestJwt(name, map);
    }

    private static JsonText json(String text) {
        return new JsonText("\"" + text + "\"");
    }

    @Test
    void jwtStringClaimsReportTeamPriorityBesideOwnPriority() {
        Caller caller = resolver.resolve(jwt("carol", "priority", "gold", "team", "team-c", "team_priority", "platinum"));

        assertThat(caller).isEqualTo(new Caller("carol", "team-c", "platinum", "gold"));
    }

    @Test
    void jwtJsonValueClaimsAreUnquoted() {
        Caller caller = resolver.resolve(jwt("carol",
                "priority", json("gold"), "team", json("team-c"), "team_priority", json("platinum")));

        assertThat(caller).isEqualTo(new Caller("carol", "team-c", "platinum", "gold"));
    }

    @Test
    void jwtMetadataObjectClaimsCarryThePriorities() {
        Caller caller = resolver.resolve(jwt("carol",
                "metadata", Map.of("priority", json("gold"), "owner", json("x")),
                "team", "team-c",
                "team_metadata", Map.of("priority", "platinum")));

        assertThat(caller).isEqualTo(new Caller("carol", "team-c", "platinum", "gold"));
    }

    @Test
    void aDirectPriorityClaimWinsOverTheMetadataObject() {
        Caller caller = resolver.resolve(jwt("carol",
                "priority", "gold", "metadata", Map.of("priority", "silver"),
                "team", "team-c", "team_priority", "platinum", "team_metadata", Map.of("priority", "bronze")));

        assertThat(caller).isEqualTo(new Caller("carol", "team-c", "platinum", "gold"));
    }

    @Test
    void claimNamesAreConfigurable() {
        CallerResolver custom = CallerResolvers.create(Map.of(
                "llm.ratelimit.jwt.priority-claim", "tier",
                "llm.ratelimit.jwt.metadata-claim", "key_meta",
                "llm.ratelimit.jwt.team-claim", "org",
                "llm.ratelimit.jwt.team-priority-claim", "org_tier",
                "llm.ratelimit.jwt.team-metadata-claim", "org_meta"));

        assertThat(custom.resolve(jwt("carol", "tier", "gold", "org", "team-c", "org_tier", "platinum",
                "priority", "ignored", "team", "ignored", "team_priority", "ignored")))
                .isEqualTo(new Caller("carol", "team-c", "platinum", "gold"));
        assertThat(custom.resolve(jwt("carol", "key_meta", Map.of("priority", "gold"), "org", "team-c",
                "org_meta", Map.of("priority", "platinum"), "metadata", Map.of("priority", "ignored"))))
                .isEqualTo(new Caller("carol", "team-c", "platinum", "gold"));
    }

    @Test
    void aJwtTeamWithoutTeamPriorityTakesItFromConfiguration() {
        assertThat(resolver.resolve(jwt("carol", "team", "team-a")))
                .isEqualTo(new Caller("carol", "team-a", "prod", null));
    }

    @Test
    void aJwtWithoutClaimsFallsBackToTheStaticMappingOfItsName() {
        assertThat(resolver.resolve(jwt("alice"))).isEqualTo(new Caller("alice", "team-a", "prod", "dev"));
    }

    @Test
    void jwtClaimsWinOverStaticConfigurationAndTheTeamPriorityFollowsTheClaimedTeam() {
        assertThat(resolver.resolve(jwt("alice", "priority", "gold", "team", "team-x")))
                .isEqualTo(new Caller("alice", "team-x", "batch", "gold"));
        assertThat(resolver.resolve(jwt("alice", "team_priority", "platinum")))
                .isEqualTo(new Caller("alice", "team-a", "platinum", "dev"));
    }

    @Test
    void unusableClaimValuesAreTreatedAsMissing() {
        Caller caller = resolver.resolve(jwt("alice",
                "team", List.of("team-x"), "priority", new JsonText("null"), "team_priority", "  "));

        assertThat(caller).isEqualTo(new Caller("alice", "team-a", "prod", "dev"));
    }

    @Test
    void aMetadataPrincipalReportsItsMetadata() {
        Caller caller = resolver.resolve(new TestMetadataPrincipal("key-17",
                Map.of("priority", "gold"), "team-c", Map.of("priority", "platinum")));

        assertThat(caller).isEqualTo(new Caller("key-17", "team-c", "platinum", "gold"));
    }

    @Test
    void aMetadataPrincipalWinsOverStaticConfigurationFieldByField() {
        assertThat(resolver.resolve(new TestMetadataPrincipal("alice", Map.of("priority", "gold"), null, Map.of())))
                .isEqualTo(new Caller("alice", "team-a", "prod", "gold"));
        assertThat(resolver.resolve(new TestMetadataPrincipal("alice", Map.of(), "team-x", null)))
                .isEqualTo(new Caller("alice", "team-x", "batch", "dev"));
    }

    @Test
    void aMetadataPrincipalWithOnlyTheDefaultsIsMappedByName() {
        MetadataPrincipal keyOnly = new MetadataPrincipal() {
            @Override
            public Map<String, String> metadata() {
                return Map.of();
            }

            @Override
            public String getName() {
                return "alice";
            }
        };

        assertThat(resolver.resolve(keyOnly)).isEqualTo(new Caller("alice", "team-a", "prod", "dev"));
    }

    @Test
    void aPrincipalThatIsBothMetadataPrincipalAndJwtIsReadThroughItsMetadata() {
        class Both extends TestMetadataPrincipal implements org.eclipse.microprofile.jwt.JsonWebToken {
            Both() {
                super("carol", Map.of("priority", "gold"), null, null);
            }

            @Override
            public java.util.Set<String> getClaimNames() {
                return java.util.Set.of("priority");
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> T getClaim(String claimName) {
                return (T) (claimName.equals("priority") ? "from-jwt" : null);
            }
        }

        assertThat(resolver.resolve(new Both())).isEqualTo(new Caller("carol", null, null, "gold"));
    }

    @Test
    void anyOtherPrincipalIsMappedByName() {
        assertThat(resolver.resolve(named("alice"))).isEqualTo(new Caller("alice", "team-a", "prod", "dev"));
        assertThat(resolver.resolve(named("mallory"))).isEqualTo(new Caller("mallory", null, null, null));
    }

    @Test
    void noPrincipalIsAnonymous() {
        assertThat(resolver.resolve(null)).isSameAs(Caller.ANONYMOUS);
    }

    static class TestMetadataPrincipal implements MetadataPrincipal {
        private final String name;
        private final Map<String, String> metadata;
        private final String team;
        private final Map<String, String> teamMetadata;

        TestMetadataPrincipal(String name, Map<String, String> metadata, String team, Map<String, String> teamMetadata) {
            this.name = name;
            this.metadata = metadata;
            this.team = team;
            this.teamMetadata = teamMetadata;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public Map<String, String> metadata() {
            return metadata;
        }

        @Override
        public String team() {
            return team;
        }

        @Override
        public Map<String, String> teamMetadata() {
            return teamMetadata;
        }
    }

    @Test
    void jwtMetadataObjectsCarryTheLimitsOfKeyUserAndTeamAndSubIsTheUser() {
        Caller caller = resolver.resolve(jwt("carol", "sub", "user-42",
                "metadata", Map.of("rpm-limit", new JsonText("60"), "max-parallel-requests", new JsonText("4")),
                "user_metadata", Map.of("tpm-limit", new JsonText("50000")),
                "team", "team-c",
                "team_metadata", Map.of("rpm-limit", json("600"), "max-parallel-requests", new JsonText("40"))));

        assertThat(caller).isEqualTo(new Caller("carol", "team-c", null, null, "user-42", new CallerLimits(
                new ScopeLimits(60, 0, 4), new ScopeLimits(0, 50000, 0), new ScopeLimits(600, 0, 40))));
    }

    @Test
    void jwtMetadataCarriesLimitsOfAnyWindowAsMembersOrAsALimitsObject() {
        Caller caller = resolver.resolve(jwt("carol", "sub", "user-42",
                "metadata", Map.of("limits.output-tokens.1m", new JsonText("8000"),
                        "limits", Map.of("tokens", Map.of("30d", new JsonText("50000000")),
                                "requests", Map.of("1h", json("100"), "PT10S", new JsonText("5"))),
                        "rpd-limit", new JsonText("1000")),
                "team", "team-c",
                "team_metadata", Map.of("limits.input-tokens.1d", json("2000000"))));

        assertThat(caller.limits().key()).isEqualTo(new ScopeLimits(List.of(
                new RateLimit(Dimension.OUTPUT_TOKENS, 60_000, 8000),
                new RateLimit(Dimension.TOKENS, 30 * DAY, 50_000_000),
                new RateLimit(Dimension.REQUESTS, 3_600_000, 100),
                new RateLimit(Dimension.REQUESTS, 10_000, 5),
                new RateLimit(Dimension.REQUESTS, DAY, 1000)), 0));
        assertThat(caller.limits().team()).isEqualTo(new ScopeLimits(List.of(
                new RateLimit(Dimension.INPUT_TOKENS, DAY, 2_000_000)), 0));
        assertThat(caller.limits().user()).isEqualTo(ScopeLimits.NONE);
    }

    @Test
    void invalidMetadataLimitsAreIgnoredAndTheValidOnesKept() {
        Map<String, Object> metadata = new HashMap<>();
        metadata.put("limits.words.1h", "5");                  // no such dimension
        metadata.put("limits.requests.soon", "5");             // no duration
        metadata.put("limits.requests.0s", "5");               // an empty window
        metadata.put("limits.requests.3654d", "5");            // past the longest window
        metadata.put("limits.requests.999999999999999d", "5"); // past what milliseconds count
        metadata.put("limits.requests", "5");                  // no window
        metadata.put("limits.requests.-9999999999999999s", "5"); // negative past what milliseconds count
        metadata.put("limits.tokens.1h", "-3");                // not at least 1
        metadata.put("limits.tokens.2h", "many");
        metadata.put("limits", Map.of("tokens", "5", "requests", Map.of("1m", "0", "1h", "7", "PT-2562047788015215H", "5"),
                "words", Map.of("1h", "5")));
        metadata.put("max-parallel-requests", "2");

        Caller caller = resolver.resolve(jwt("carol", "metadata", metadata));

        assertThat(caller.limits().key()).isEqualTo(new ScopeLimits(List.of(
                new RateLimit(Dimension.REQUESTS, 3_600_000, 7)), 2));
    }

    @Test
    void ofMetadataLimitsOfOneWindowTheLowerStays() {
        Caller caller = resolver.resolve(jwt("carol", "metadata", Map.of("limits.requests.1h", "5",
                "limits", Map.of("requests", Map.of("60m", "3", "PT1H", "4")), "rpd-limit", "10", "limits.requests.24h", "7")));

        assertThat(caller.limits().key()).isEqualTo(new ScopeLimits(List.of(
                new RateLimit(Dimension.REQUESTS, 3_600_000, 3), new RateLimit(Dimension.REQUESTS, DAY, 7)), 0));
    }

    @Test
    void atMostSixteenLimitsAreReadFromOneScopesMetadata() {
        Map<String, String> metadata = new HashMap<>();
        for (int minutes = 1; minutes <= 20; minutes++) {
            metadata.put("limits.requests." + minutes + "m", "10");
        }
        metadata.put("rpm-limit", "3");

        Caller caller = resolver.resolve(jwt("carol", "metadata", metadata));

        List<RateLimit> limits = caller.limits().key().limits();
        assertThat(limits).hasSize(16).contains(new RateLimit(Dimension.REQUESTS, RateLimit.CONFIGURED_WINDOW, 3));
        assertThat(limits).allMatch(limit -> limit.dimension() == Dimension.REQUESTS);
    }

    @Test
    void theUserClaimsAreConfigurable() {
        CallerResolver custom = CallerResolvers.create(Map.of(
                "llm.ratelimit.jwt.user-claim", "email", "llm.ratelimit.jwt.user-metadata-claim", "person"));

        Caller caller = custom.resolve(jwt("carol", "sub", "ignored", "email", "carol@example.com",
                "person", Map.of("rpm-limit", "7")));

        assertThat(caller.user()).isEqualTo("carol@example.com");
        assertThat(caller.limits()).isEqualTo(new CallerLimits(ScopeLimits.NONE, new ScopeLimits(7, 0, 0), ScopeLimits.NONE));
    }

    @Test
    void aMetadataPrincipalReportsUserAndLimitsOfEveryScope() {
        MetadataPrincipal key = new MetadataPrincipal() {
            @Override
            public Map<String, String> metadata() {
                return Map.of("rpm-limit", "60", "tpm-limit", "10000", "max-parallel-requests", "4");
            }

            @Override
            public String user() {
                return "dana";
            }

            @Override
            public Map<String, String> userMetadata() {
                return Map.of("max-parallel-requests", "8");
            }

            @Override
            public String team() {
                return "team-d";
            }

            @Override
            public Map<String, String> teamMetadata() {
                return Map.of("tpm-limit", "100000");
            }

            @Override
            public String getName() {
                return "sk-live-dana";
            }
        };

        assertThat(resolver.resolve(key)).isEqualTo(new Caller("sk-live-dana", "team-d", null, null, "dana",
                new CallerLimits(new ScopeLimits(60, 10000, 4), new ScopeLimits(0, 0, 8), new ScopeLimits(0, 100000, 0))));
    }

    @Test
    void metadataLimitsThatAreNoWholeNumberOfAtLeastOneAreIgnored() {
        Caller caller = resolver.resolve(new TestMetadataPrincipal("key-17",
                Map.of("rpm-limit", "0", "tpm-limit", "many", "max-parallel-requests", "-3"), "team-k", Map.of("rpm-limit", "5")));

        assertThat(caller.limits()).isEqualTo(new CallerLimits(ScopeLimits.NONE, ScopeLimits.NONE, new ScopeLimits(5, 0, 0)));
    }
}
