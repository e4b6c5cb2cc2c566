package dev.llmratelimit.samples.springboot;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * HTTP Basic with three users: the authority {@code llm.priority:<name>} gives the caller's priority
 * (alice {@code prod}, bob {@code dev}, carol none: the default pool).
 */
@Configuration
public class SecurityConfiguration {

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(requests -> requests
                        .requestMatchers("/actuator/**").permitAll()
                        .anyRequest().authenticated())
                .httpBasic(Customizer.withDefaults())
                .csrf(csrf -> csrf.disable());
        return http.build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}alice-secret").authorities("llm.priority:prod", "ops").build(),
                User.withUsername("bob").password("{noop}bob-secret").authorities("llm.priority:dev").build(),
                User.withUsername("carol").password("{noop}carol-secret").authorities("user").build());
    }
}
