//! What a session tells the monitors: the device it was opened on, and whether its place is
//! anomalous for its user.

use chrono::{DateTime, Utc};

/// The browser, operating system and kind of device a user agent names (woothee's parser).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// "Chrome 120.0.0.0", or none when unknown.
    pub browser: Option<String>,
    /// "Windows 10", "Mac OSX", "Android", or none when unknown.
    pub os: Option<String>,
    /// `desktop`, `mobile`, `bot` or `other`.
    pub device_type: &'static str,
}

impl Device {
    pub fn from_user_agent(user_agent: &str) -> Self {
        let Some(ua) = woothee::parser::Parser::new().parse(user_agent) else {
            return Self { browser: None, os: None, device_type: "other" };
        };
        let known = |s: &str| (!s.is_empty() && s != "UNKNOWN").then(|| s.to_owned());
        let browser = known(ua.name).map(|name| match known(ua.version) {
            Some(version) => format!("{name} {version}"),
            None => name,
        });
        let os = known(ua.os).map(|os| match known(&ua.os_version).filter(|v| !os.contains(v.as_str())) {
            Some(version) if os == "Windows" || os == "Android" || os == "iOS" => format!("{os} {version}"),
            _ => os,
        });
        let device_type = match ua.category {
            "pc" => "desktop",
            "smartphone" | "mobilephone" => "mobile",
            "crawler" => "bot",
            _ => "other",
        };
        Self { browser, os, device_type }
    }
}

/// A sign-in from a country this user never signed in from before (not their first sign-in).
pub const NEW_COUNTRY: &str = "new_country";
/// A sign-in whose place is farther from the previous session's than a plane could fly since.
pub const IMPOSSIBLE_TRAVEL: &str = "impossible_travel";

/// Faster than this between two sessions' places is impossible travel.
pub const MAX_TRAVEL_KMH: f64 = 900.0;
/// GeoIP places are cities, so nearby cities at once are not travel at all.
const MIN_TRAVEL_KM: f64 = 100.0;

/// What the user's earlier sessions say, for the flags of a new one.
#[derive(Debug, Clone, Default)]
pub struct History {
    pub had_sessions: bool,
    pub country_seen_before: bool,
    /// The previous session with a place: latitude, longitude, and when it was last seen there.
    pub previous_place: Option<(f64, f64, DateTime<Utc>)>,
}

/// The anomaly flags of a new session at `place` (latitude, longitude, country) at `now`.
pub fn flags(history: &History, place: Option<(f64, f64, &str)>, now: DateTime<Utc>) -> Vec<&'static str> {
    let mut flags = Vec::new();
    let Some((lat, lon, _country)) = place else { return flags };
    if history.had_sessions && !history.country_seen_before {
        flags.push(NEW_COUNTRY);
    }
    if let Some((prev_lat, prev_lon, seen)) = history.previous_place {
        let km = distance_km((prev_lat, prev_lon), (lat, lon));
        let hours = (now - seen).num_milliseconds().max(0) as f64 / 3_600_000.0;
        if km > MIN_TRAVEL_KM && (hours == 0.0 || km / hours > MAX_TRAVEL_KMH) {
            flags.push(IMPOSSIBLE_TRAVEL);
        }
    }
    flags
}

/// Great-circle distance (haversine, mean Earth radius).
pub fn distance_km((lat1, lon1): (f64, f64), (lat2, lon2): (f64, f64)) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let (dp, dl) = ((lat2 - lat1).to_radians(), (lon2 - lon1).to_radians());
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * 6371.0 * a.sqrt().asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONDON: (f64, f64) = (51.5142, -0.0931);
    const TOKYO: (f64, f64) = (35.6895, 139.6917);

    #[test]
    fn user_agents_become_browser_os_and_device() {
        let chrome = Device::from_user_agent(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        );
        assert_eq!(chrome.browser.as_deref(), Some("Chrome 120.0.0.0"));
        assert_eq!(chrome.os.as_deref(), Some("Windows 10"));
        assert_eq!(chrome.device_type, "desktop");
        let iphone = Device::from_user_agent(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
        );
        assert_eq!(iphone.device_type, "mobile");
        assert!(iphone.browser.as_deref().unwrap().starts_with("Safari"));
        assert_eq!(Device::from_user_agent("Googlebot/2.1 (+http://www.google.com/bot.html)").device_type, "bot");
        assert_eq!(Device::from_user_agent("curl/8.5.0").device_type, "other");
        assert_eq!(Device::from_user_agent("SomethingNew/1.0"), Device { browser: None, os: None, device_type: "other" });
    }

    #[test]
    fn london_to_tokyo_is_about_9560_km() {
        assert!((distance_km(LONDON, TOKYO) - 9560.0).abs() < 50.0, "{}", distance_km(LONDON, TOKYO));
        assert!(distance_km(LONDON, LONDON) < 0.001);
    }

    #[test]
    fn a_new_country_is_flagged_but_not_on_a_first_sign_in() {
        let now = Utc::now();
        let first = History::default();
        assert!(flags(&first, Some((LONDON.0, LONDON.1, "GB")), now).is_empty());
        let seen_elsewhere = History { had_sessions: true, country_seen_before: false, previous_place: None };
        assert_eq!(flags(&seen_elsewhere, Some((LONDON.0, LONDON.1, "GB")), now), vec![NEW_COUNTRY]);
        let seen_here = History { had_sessions: true, country_seen_before: true, previous_place: None };
        assert!(flags(&seen_here, Some((LONDON.0, LONDON.1, "GB")), now).is_empty());
        assert!(flags(&seen_elsewhere, None, now).is_empty(), "no place, no flag");
    }

    #[test]
    fn travel_faster_than_a_plane_is_impossible() {
        let now = Utc::now();
        let history = |hours_ago: i64| History {
            had_sessions: true,
            country_seen_before: true,
            previous_place: Some((LONDON.0, LONDON.1, now - chrono::Duration::hours(hours_ago))),
        };
        // 9,560 km in one hour, then in 20 hours (478 km/h).
        assert_eq!(flags(&history(1), Some((TOKYO.0, TOKYO.1, "JP")), now), vec![IMPOSSIBLE_TRAVEL]);
        assert!(flags(&history(20), Some((TOKYO.0, TOKYO.1, "JP")), now).is_empty());
        // The same city at once is no travel.
        assert!(flags(&history(0), Some((LONDON.0, LONDON.1, "GB")), now).is_empty());
    }
}
