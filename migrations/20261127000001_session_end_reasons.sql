-- Sessions also end when their user's role changes (the token carries the role, so a changed
-- role must sign in again: OWASP's "renew the session on a change of privilege"), when unused
-- for the idle timeout, and when they expire (announced by the monitoring sweep).
alter table sessions drop constraint sessions_end_reason_check;
alter table sessions add constraint sessions_end_reason_check check (end_reason in (
    'logout', 'revoked', 'user_deactivated', 'enterprise_deactivated', 'deleted', 'role_changed', 'idle', 'expired'
));
