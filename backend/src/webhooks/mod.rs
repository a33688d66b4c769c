//! Webhooks: what they may listen to, their secrets and signatures (the Standard Webhooks
//! specification, signed by its own library), the guard against server-side request forgery
//! (`guard.rs`), and the dispatcher every instance runs (`dispatcher.rs`).

pub mod dispatcher;
pub mod guard;

use base64::Engine as _;
use rand::RngCore as _;

/// Every event a webhook may listen to. `webhook.test` is sent only on request, to one webhook.
pub const EVENTS: &[&str] = &[
    "report.created",
    "report.submitted",
    "report.reviewed",
    "report.approved",
    "report.rejected",
    "report.deleted",
    "user.created",
    "user.updated",
    "user.deactivated",
    "user.deleted",
    "spreadsheet.created",
    "session.started",
    "session.ended",
];

/// The event the "send a test event" call sends.
pub const TEST_EVENT: &str = "webhook.test";

/// A new signing secret: `whsec_` and the base64 of 32 random bytes.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// The message id a delivery carries in `webhook-id`, the same on every attempt.
pub fn message_id(delivery: uuid::Uuid) -> String {
    format!("msg_{}", delivery.simple())
}

/// The `webhook-signature` header: one `v1,<base64 HMAC-SHA256>` per live secret, separated by
/// spaces (the specification's way of signing with a rotated secret and its successor).
pub fn signature(secrets: &[&str], msg_id: &str, timestamp: i64, body: &[u8]) -> anyhow::Result<String> {
    let mut signatures = Vec::with_capacity(secrets.len());
    for secret in secrets {
        let signer = standardwebhooks::Webhook::new(secret).map_err(|e| anyhow::anyhow!("bad webhook secret: {e:?}"))?;
        signatures.push(signer.sign(msg_id, timestamp, body).map_err(|e| anyhow::anyhow!("cannot sign: {e:?}"))?);
    }
    Ok(signatures.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_the_specifications_example() {
        // The example of the Standard Webhooks specification (its test vectors).
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        let header = signature(&[secret], "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, body).unwrap();
        assert_eq!(header, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn a_rotated_secret_signs_beside_the_new_one() {
        let (old, new) = (new_secret(), new_secret());
        let header = signature(&[&new, &old], "msg_1", 1, b"{}").unwrap();
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert!(parts.iter().all(|p| p.starts_with("v1,")));
        assert_ne!(parts[0], parts[1]);
    }
}
