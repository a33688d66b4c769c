-- A session also ends when the enterprise's identity provider signs the person out (OpenID
-- Connect Back-Channel Logout: `POST /auth/sso/{enterpriseId}/backchannel-logout`).
alter table sessions drop constraint sessions_end_reason_check;
alter table sessions add constraint sessions_end_reason_check check (end_reason in (
    'logout', 'revoked', 'user_deactivated', 'enterprise_deactivated', 'deleted', 'role_changed', 'idle', 'expired',
    'provider_logout'
));
