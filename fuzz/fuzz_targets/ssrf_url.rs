//! The SSRF guard's verdict on an HTTP hook's URL (`docs/configuration.md`), before any DNS, on any
//! text.
//!
//! Invariants: nothing panics; a refusal says why; allowing this machine never refuses what
//! the strict guard accepts; an accepted URL is http or https, carries no user name or
//! password, and an address literal in it lies in no blocked range; and the verdict depends
//! on the address, not its spelling: the URL as the guard uses it (normalised) gets the same
//! verdict as the text, and an accepted IPv4 host stays accepted wrapped as `[::ffff:a.b.c.d]`.

#![no_main]

use std::net::IpAddr;

use agent_hooks_runtime::internals::{blocked_rule, check_hook_url};
use libfuzzer_sys::fuzz_target;
use url::{Host, Url};

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    let strict = check_hook_url(raw, false);
    let local = check_hook_url(raw, true);
    if let Err(why) = &strict {
        assert!(!why.is_empty(), "a refusal without a reason");
    }
    if strict.is_ok() {
        assert!(
            local.is_ok(),
            "{raw:?}: allowed strictly, refused with allow-local: {local:?}"
        );
    }
    let Ok(used) = strict else {
        // Refused: no other spelling of the same URL may pass.
        if let Ok(url) = Url::parse(raw.trim()) {
            let again = check_hook_url(url.as_str(), false);
            assert!(
                again.is_err(),
                "{raw:?} refused, its normal form {url} accepted"
            );
        }
        return;
    };
    let url = Url::parse(&used).expect("the guard's URL parses again");
    assert!(matches!(url.scheme(), "http" | "https"), "{used}");
    assert!(
        url.username().is_empty() && url.password().is_none(),
        "{used}"
    );
    match url.host() {
        Some(Host::Ipv4(ip)) => {
            assert_eq!(blocked_rule(IpAddr::V4(ip)), None, "{raw:?} reaches {ip}");
            let mapped = format!("{}://[::ffff:{ip}]/", url.scheme());
            assert!(
                check_hook_url(&mapped, false).is_ok(),
                "{mapped} refused, {raw:?} not"
            );
        }
        Some(Host::Ipv6(ip)) => {
            assert_eq!(blocked_rule(IpAddr::V6(ip)), None, "{raw:?} reaches {ip}");
        }
        Some(Host::Domain(name)) => {
            // A name is checked again, address by address, when it is resolved; an address
            // left as a name would skip the literal check.
            assert!(
                name.parse::<IpAddr>().is_err(),
                "{raw:?}: the address {name} passed as a name"
            );
        }
        None => panic!("{raw:?} accepted without a host"),
    }
    assert_eq!(
        check_hook_url(&used, false),
        Ok(used.clone()),
        "the normal form is its own"
    );
});
