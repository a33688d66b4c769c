-- The end reasons, with `provider_logout`: the identity provider signed the person out
-- (`POST /auth/sso/{enterpriseId}/backchannel-logout`).
alter table sessions add constraint sessions_end_reason_check check (end_reason in (
    'logout', 'revoked', 'user_deactivated', 'enterprise_deactivated', 'deleted', 'role_changed', 'idle', 'expired',
    'provider_logout'
));
