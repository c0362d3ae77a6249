//! XFCC passwords made and stored: random, shown once, kept only as an
//! Argon2id hash. Apart from `xfcc` so that the inbox (the `xfcc password`
//! mail command) and the XFCC service both use it without depending on
//! each other.

use argon2::password_hash::{PasswordHasher, SaltString};

use crate::adapter::store::Tx;
use crate::domain::player::Player;
use crate::service::ServiceError;

/// Letters of a generated password: no look-alikes (0/O, 1/l/I), so it can
/// be typed from a mail.
const PASSWORD_LETTERS: &[u8] = b"abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/// Letters in a generated password (about 115 bits).
pub(crate) const PASSWORD_LENGTH: usize = 20;

/// A fresh random password.
pub(crate) fn generate_password() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..PASSWORD_LENGTH)
        .map(|_| char::from(PASSWORD_LETTERS[rng.random_range(0..PASSWORD_LETTERS.len())]))
        .collect()
}

/// The Argon2id hash of a password (default parameters: 19 MiB, 2 passes),
/// as a PHC string. Slow on purpose: run it off the async threads.
pub(crate) fn hash_password(password: &str) -> Result<String, ServiceError> {
    let salt: [u8; 16] = rand::random();
    let salt = SaltString::encode_b64(&salt).map_err(|e| ServiceError::Password(e.to_string()))?;
    argon2::Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| ServiceError::Password(e.to_string()))
}

/// Runs slow work (hashing) off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// The same within a transaction, for a player already known.
pub(crate) async fn set_new_password(tx: &mut Tx, player: &Player) -> Result<String, ServiceError> {
    let password = generate_password();
    let clear = password.clone();
    let hash = blocking(move || hash_password(&clear)).await?;
    tx.set_xfcc_hash(player.id, Some(&hash)).await?;
    Ok(password)
}
