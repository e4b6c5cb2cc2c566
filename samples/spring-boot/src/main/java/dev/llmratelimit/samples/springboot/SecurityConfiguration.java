package dev.llmratelimit.samples.springboot;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * HTTP Basic with three users: the authority {@code llm.priority:<name>} gives the caller's priority
 * (alice {@code prod}, bob {@code dev}, carol none: the default pool); alice may see the status page (role
 * {@code llm-ratelimit-status}). Where {@code spring.security.oauth2.resourceserver.jwt.*} names the
 * issuer's keys, bearer JWTs too: the caller's priority, team and limits then come from the token's claims.
 */
@Configuration
public class SecurityConfiguration {

    @Bean
    SecurityFilterChain security(HttpSecurity http, ObjectProvider<JwtDecoder> jwtDecoder) throws Exception {
        http.authorizeHttpRequests(requests -> requests
                        .requestMatchers("/actuator/**").permitAll()
                        .anyRequest().authenticated())
                .httpBasic(Customizer.withDefaults())
                .csrf(csrf -> csrf.disable());
        if (jwtDecoder.getIfAvailable() != null) {
            http.oauth2ResourceServer(server -> server.jwt(Customizer.withDefaults()));
        }
        return http.build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}alice-secret").authorities("llm.priority:prod", "ROLE_llm-ratelimit-status").build(),
                User.withUsername("bob").password("{noop}bob-secret").authorities("llm.priority:dev").build(),
                User.withUsername("carol").password("{noop}carol-secret").authorities("user").build());
    }
}
