//! The SSRF guard of HTTP hooks (`docs/configuration.md`): a hook URL must not become a way for a
//! prompt-injected agent to reach this machine's own services, the local network or a cloud
//! metadata endpoint.
//!
//! Two layers, both applied at config load and again at every call:
//! - **the URL** ([`Guard::check_url`]): only `http`/`https`, no userinfo, no name that stands
//!   for this machine or a metadata service, and a literal address — in whatever spelling the
//!   WHATWG URL parser accepts (`127.1`, `2130706433`, `0x7f000001`, `[::ffff:7f00:1]`, ...) —
//!   must not be in a blocked range;
//! - **the name** ([`Guard::resolve`]): every address it resolves to is canonicalised (the IPv4
//!   inside IPv4-mapped, IPv4-compatible, NAT64 and 6to4 addresses) and the whole answer is
//!   refused if any one of them is blocked. The HTTP client uses this resolver for its only DNS
//!   step, so it connects to exactly the addresses that were checked: a second DNS answer has
//!   nothing to swap (DNS rebinding).
//!
//! [`BLOCKED_RANGES`] is the one table of what is blocked and why. Only
//! `AGENT_HOOKS_HTTP_ALLOW_LOCAL=1` (alias: `STARCHILD_SHELL_HOOKS_HTTP_ALLOW_LOCAL=1`, the
//! seeds' name) in the runtime's environment lifts the address rule (and the
//! names that stand for local addresses); it is never a config key, so an agent that can edit
//! the workspace cannot turn the guard off. Scheme and userinfo rules always hold.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use futures::future::BoxFuture;
use url::{Host, Url};

/// The environment variable that lifts the address rule for hooks served on this machine.
pub const ALLOW_LOCAL_ENV: &str = "AGENT_HOOKS_HTTP_ALLOW_LOCAL";

/// The name the seeds' runtime gives the same switch; a Starchild deployment that sets it keeps
/// working unchanged.
pub const ALLOW_LOCAL_ENV_ALIAS: &str = "STARCHILD_SHELL_HOOKS_HTTP_ALLOW_LOCAL";

/// Whether `AGENT_HOOKS_HTTP_ALLOW_LOCAL=1` (or its alias
/// `STARCHILD_SHELL_HOOKS_HTTP_ALLOW_LOCAL=1`) is set in this process's environment (`list`
/// and `doctor` show it).
pub fn allow_local_enabled() -> bool {
    [ALLOW_LOCAL_ENV, ALLOW_LOCAL_ENV_ALIAS]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| v == "1"))
}

/// One blocked address range and the rule it falls under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockedRange {
    /// The range's first address.
    pub network: IpAddr,
    /// The prefix length, in bits.
    pub prefix: u8,
    /// What the range is, for refusals (`private`, `unspecified`, ...).
    pub rule: &'static str,
}

impl BlockedRange {
    /// Whether `ip` lies in the range (an IPv4 address never lies in an IPv6 range).
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }

    /// The first and last address of the range.
    #[cfg(test)]
    pub fn bounds(&self) -> (IpAddr, IpAddr) {
        match self.network {
            IpAddr::V4(net) => {
                let host_bits = u32::MAX.checked_shr(u32::from(self.prefix)).unwrap_or(0);
                let first = u32::from(net) & !host_bits;
                (
                    IpAddr::V4(first.into()),
                    IpAddr::V4((first | host_bits).into()),
                )
            }
            IpAddr::V6(net) => {
                let host_bits = u128::MAX.checked_shr(u32::from(self.prefix)).unwrap_or(0);
                let first = u128::from(net) & !host_bits;
                (
                    IpAddr::V6(first.into()),
                    IpAddr::V6((first | host_bits).into()),
                )
            }
        }
    }
}

impl fmt::Display for BlockedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}/{})", self.rule, self.network, self.prefix)
    }
}

const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8, rule: &'static str) -> BlockedRange {
    BlockedRange {
        network: IpAddr::V4(Ipv4Addr::new(a, b, c, d)),
        prefix,
        rule,
    }
}

const fn v6(segments: [u16; 8], prefix: u8, rule: &'static str) -> BlockedRange {
    let [a, b, c, d, e, f, g, h] = segments;
    BlockedRange {
        network: IpAddr::V6(Ipv6Addr::new(a, b, c, d, e, f, g, h)),
        prefix,
        rule,
    }
}

/// Every range an HTTP hook may not reach (IANA special-purpose registries, RFC 6890 and
/// successors). Checked in order, so a narrower range listed first names the rule. IPv6 forms
/// that carry an IPv4 address are decoded by [`canonical`] before this table is consulted;
/// everything outside global unicast (2000::/3) is reserved.
pub static BLOCKED_RANGES: &[BlockedRange] = &[
    v4(0, 0, 0, 0, 32, "unspecified"),
    v4(0, 0, 0, 0, 8, "reserved (\"this network\")"),
    v4(10, 0, 0, 0, 8, "private"),
    v4(
        100,
        64,
        0,
        0,
        10,
        "shared address space (carrier-grade NAT)",
    ),
    v4(127, 0, 0, 0, 8, "loopback"),
    v4(169, 254, 0, 0, 16, "link-local (cloud metadata lives here)"),
    v4(172, 16, 0, 0, 12, "private"),
    v4(192, 0, 0, 0, 24, "reserved (IETF protocol assignments)"),
    v4(192, 0, 2, 0, 24, "documentation"),
    v4(192, 88, 99, 0, 24, "reserved (6to4 relay anycast)"),
    v4(192, 168, 0, 0, 16, "private"),
    v4(198, 18, 0, 0, 15, "benchmarking"),
    v4(198, 51, 100, 0, 24, "documentation"),
    v4(203, 0, 113, 0, 24, "documentation"),
    v4(224, 0, 0, 0, 4, "multicast"),
    v4(255, 255, 255, 255, 32, "broadcast"),
    v4(240, 0, 0, 0, 4, "reserved"),
    v6([0, 0, 0, 0, 0, 0, 0, 0], 128, "unspecified"),
    v6([0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback"),
    v6(
        [0x64, 0xff9b, 1, 0, 0, 0, 0, 0],
        48,
        "private (local-use NAT64)",
    ),
    v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64, "reserved (discard-only)"),
    v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48, "benchmarking"),
    v6(
        [0x2001, 0, 0, 0, 0, 0, 0, 0],
        23,
        "reserved (IETF protocol assignments)",
    ),
    v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, "documentation"),
    v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, "documentation"),
    v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, "private (unique local)"),
    v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, "link-local"),
    v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, "reserved (site-local)"),
    v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, "multicast"),
    v6([0, 0, 0, 0, 0, 0, 0, 0], 3, "reserved (not global unicast)"),
    v6(
        [0x4000, 0, 0, 0, 0, 0, 0, 0],
        2,
        "reserved (not global unicast)",
    ),
    v6(
        [0x8000, 0, 0, 0, 0, 0, 0, 0],
        1,
        "reserved (not global unicast)",
    ),
];

/// Host names refused outright: they stand for this machine or a cloud metadata service
/// whatever a resolver says. Suffixes start with a dot.
const FORBIDDEN_NAMES: &[&str] = &[
    "localhost",
    ".localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "ip6-loopback",
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
];

/// The address an IPv6 address really reaches: the embedded IPv4 of IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`)
/// and 6to4 (`2002::/16`) addresses; anything else unchanged.
pub fn canonical(ip: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = ip else {
        return ip;
    };
    let s = v6.segments();
    let o = v6.octets();
    let low = IpAddr::V4(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0xffff, 0, _, _] => low,
        // `::` and `::1` are themselves, not 0.0.0.0 and 0.0.0.1.
        [0, 0, 0, 0, 0, 0, 0, 0 | 1] => ip,
        [0, 0, 0, 0, 0, 0, _, _] => low,
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => low,
        [0x2002, _, _, _, _, _, _, _] => IpAddr::V4(Ipv4Addr::new(o[2], o[3], o[4], o[5])),
        _ => ip,
    }
}

/// The blocked range `ip` falls in, judged by what it really reaches (an address carrying an
/// IPv4 one is judged as that IPv4); `None` when it may be connected to.
pub fn blocked_range(ip: IpAddr) -> Option<&'static BlockedRange> {
    let real = canonical(ip);
    BLOCKED_RANGES.iter().find(|r| r.contains(real))
}

/// Why the guard refused a URL or a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The URL does not parse.
    #[error("not a valid URL: {0}")]
    Invalid(String),
    /// A scheme other than http or https.
    #[error("scheme \"{0}\" is not allowed (only http and https)")]
    Scheme(String),
    /// Credentials in the URL, where they would end up in logs and `list`.
    #[error(
        "the URL carries a user name or password; send credentials in `headers` (with `allowed_env`) instead"
    )]
    Userinfo,
    /// The URL has no host to connect to.
    #[error("the URL has no host")]
    NoHost,
    /// A name for this machine or a metadata service (`localhost`, `metadata.google.internal`).
    #[error("host \"{0}\" names this machine or a cloud metadata service{ALLOW_LOCAL_HINT}")]
    ForbiddenName(String),
    /// A literal or resolved address in a blocked range.
    #[error("{shown} is {range}{ALLOW_LOCAL_HINT}")]
    Address {
        /// The address as the URL or the resolver gave it, with the host when it was a name.
        shown: String,
        /// The address refused.
        address: IpAddr,
        /// The blocked range it lies in.
        range: BlockedRange,
    },
    /// The host name could not be resolved.
    #[error("cannot resolve \"{host}\": {error}")]
    Resolve {
        /// The host name.
        host: String,
        /// What the resolver said.
        error: String,
    },
    /// The host name resolved to nothing.
    #[error("\"{0}\" resolves to no address")]
    NoAddress(String),
}

const ALLOW_LOCAL_HINT: &str = " (for a hook served on this machine, set AGENT_HOOKS_HTTP_ALLOW_LOCAL=1 in the runtime's environment)";

/// Looks host names up. The system one asks the OS; tests play DNS with their own.
pub trait Resolver: Send + Sync + fmt::Debug {
    /// Every address `host` resolves to; the guard checks each before connecting.
    fn lookup(&self, host: String) -> BoxFuture<'static, io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (`getaddrinfo`, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn lookup(&self, host: String) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// The guard: the URL rules plus a resolver whose every answer is checked.
#[derive(Debug, Clone)]
pub struct Guard {
    resolver: Arc<dyn Resolver>,
    allow_local: bool,
}

impl Guard {
    /// A guard resolving through `resolver`; `allow_local` lifts the address rule for this
    /// machine (see [`ALLOW_LOCAL_ENV`]).
    pub fn new(resolver: Arc<dyn Resolver>, allow_local: bool) -> Guard {
        Guard {
            resolver,
            allow_local,
        }
    }

    /// The system resolver, with allow-local as this process's environment says.
    pub fn from_env() -> Guard {
        Guard::new(Arc::new(SystemResolver), allow_local_enabled())
    }

    /// Checks everything about `raw` that needs no DNS: scheme, userinfo, forbidden names and
    /// literal addresses. Returns the parsed URL.
    pub fn check_url(&self, raw: &str) -> Result<Url, Refusal> {
        let url = Url::parse(raw.trim()).map_err(|e| Refusal::Invalid(e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Refusal::Scheme(url.scheme().to_owned()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Refusal::Userinfo);
        }
        match url.host() {
            None => return Err(Refusal::NoHost),
            Some(Host::Domain(name)) => self.check_name(name)?,
            Some(Host::Ipv4(ip)) => self.check_address(IpAddr::V4(ip), None)?,
            Some(Host::Ipv6(ip)) => self.check_address(IpAddr::V6(ip), None)?,
        }
        Ok(url)
    }

    fn check_name(&self, name: &str) -> Result<(), Refusal> {
        if self.allow_local {
            return Ok(());
        }
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        let forbidden = FORBIDDEN_NAMES.iter().any(|f| match f.strip_prefix('.') {
            Some(suffix) => name.strip_suffix(suffix).is_some_and(|r| r.ends_with('.')),
            None => name == *f,
        });
        if forbidden {
            return Err(Refusal::ForbiddenName(name));
        }
        Ok(())
    }

    fn check_address(&self, address: IpAddr, host: Option<&str>) -> Result<(), Refusal> {
        if self.allow_local {
            return Ok(());
        }
        match blocked_range(address) {
            None => Ok(()),
            Some(range) => Err(Refusal::Address {
                shown: {
                    let mut shown = address.to_string();
                    let real = canonical(address);
                    if real != address {
                        shown.push_str(&format!(" (which reaches {real})"));
                    }
                    if let Some(host) = host {
                        shown.push_str(&format!(", an address of \"{host}\","));
                    }
                    shown
                },
                address,
                range: *range,
            }),
        }
    }

    /// Resolves `host` once and checks every address; refuses the whole answer if any one is
    /// blocked. What it returns is all a connection may use.
    pub async fn resolve(&self, host: &str) -> Result<Vec<IpAddr>, Refusal> {
        self.check_name(host)?;
        let addrs = self
            .resolver
            .lookup(host.to_owned())
            .await
            .map_err(|e| Refusal::Resolve {
                host: host.to_owned(),
                error: e.to_string(),
            })?;
        if addrs.is_empty() {
            return Err(Refusal::NoAddress(host.to_owned()));
        }
        for address in &addrs {
            self.check_address(*address, Some(host))?;
        }
        Ok(addrs)
    }
}

/// The guard as the HTTP client's only DNS step: the client connects to what this returns.
impl reqwest::dns::Resolve for Guard {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let guard = self.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs = guard.resolve(&host).await?;
            // Port 0: the client puts the URL's port in.
            let addrs: reqwest::dns::Addrs =
                Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test address")
    }

    fn strict() -> Guard {
        Guard::new(Arc::new(SystemResolver), false)
    }

    fn rule_of(s: &str) -> Option<&'static str> {
        blocked_range(ip(s)).map(|r| r.rule)
    }

    #[test]
    fn every_literal_spelling_of_loopback_is_refused() {
        for url in [
            "http://127.0.0.1/",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://017700000001/",
            "http://0177.0.0.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[2002:7f00:1::]/",
        ] {
            let refusal = strict().check_url(url).expect_err(url);
            assert!(
                matches!(&refusal, Refusal::Address { range, .. } if range.rule == "loopback"),
                "{url}: {refusal}"
            );
        }
    }

    #[test]
    fn issue_list_of_literals_is_refused_with_its_rule() {
        for (url, rule) in [
            ("http://0.0.0.0/", "unspecified"),
            ("http://[::]/", "unspecified"),
            ("http://169.254.169.254/latest/meta-data/", "link-local"),
            ("http://[fd00:ec2::254]/", "private (unique local)"),
            ("http://100.64.0.1/", "shared address space"),
            ("http://10.0.0.1/", "private"),
            ("http://172.16.0.1/", "private"),
            ("http://192.168.1.1/", "private"),
            ("https://[fe80::1]/", "link-local"),
            ("https://224.0.0.1/", "multicast"),
            ("https://255.255.255.255/", "broadcast"),
            ("https://192.0.2.10/", "documentation"),
            ("https://198.18.0.1/", "benchmarking"),
            ("https://240.0.0.1/", "reserved"),
        ] {
            let refusal = strict().check_url(url).expect_err(url);
            let text = refusal.to_string();
            assert!(text.starts_with(&url_host(url)), "{url}: {text}");
            assert!(text.contains(rule), "{url}: {text}");
        }
    }

    fn url_host(url: &str) -> String {
        match Url::parse(url).expect("test url").host() {
            Some(Host::Ipv6(v6)) => v6.to_string(),
            Some(h) => h.to_string(),
            None => String::new(),
        }
    }

    #[test]
    fn scheme_userinfo_and_names_are_refused() {
        let g = strict();
        assert_eq!(
            g.check_url("file:///etc/passwd"),
            Err(Refusal::Scheme("file".into()))
        );
        assert_eq!(
            g.check_url("gopher://example.com/"),
            Err(Refusal::Scheme("gopher".into()))
        );
        assert_eq!(
            g.check_url("https://user:pass@example.com/"),
            Err(Refusal::Userinfo)
        );
        assert_eq!(
            g.check_url("https://user@example.com/"),
            Err(Refusal::Userinfo)
        );
        for name in [
            "localhost",
            "LOCALHOST.",
            "api.localhost",
            "metadata.google.internal",
            "metadata",
        ] {
            assert!(
                matches!(
                    g.check_url(&format!("http://{name}/")),
                    Err(Refusal::ForbiddenName(_))
                ),
                "{name}"
            );
        }
        assert!(g.check_url("https://guard.example.com/hook").is_ok());
        assert!(g.check_url("https://notlocalhost.example/").is_ok());
    }

    #[test]
    fn allow_local_lifts_addresses_and_names_but_not_scheme_or_userinfo() {
        let g = Guard::new(Arc::new(SystemResolver), true);
        assert!(g.check_url("http://127.0.0.1:8080/hook").is_ok());
        assert!(g.check_url("http://localhost:8080/hook").is_ok());
        assert!(g.check_url("file:///etc/passwd").is_err());
        assert!(g.check_url("http://u:p@127.0.0.1/").is_err());
    }

    #[test]
    fn embedded_ipv4_is_decoded() {
        assert_eq!(canonical(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
        assert_eq!(canonical(ip("::ffff:0:10.0.0.1")), ip("10.0.0.1"));
        assert_eq!(canonical(ip("::10.0.0.1")), ip("10.0.0.1"));
        assert_eq!(canonical(ip("64:ff9b::a9fe:a9fe")), ip("169.254.169.254"));
        assert_eq!(canonical(ip("2002:c0a8:0101::1")), ip("192.168.1.1"));
        assert_eq!(canonical(ip("::1")), ip("::1"));
        assert_eq!(canonical(ip("::")), ip("::"));
        assert_eq!(canonical(ip("2606:4700::1111")), ip("2606:4700::1111"));
    }

    #[test]
    fn public_addresses_pass() {
        for a in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "2606:4700::1111",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "2002:0808:0808::1",
            "64:ff9b::808:808",
        ] {
            assert_eq!(rule_of(a), None, "{a}");
        }
    }

    /// The address next to `ip` (+1 or -1), if there is one.
    fn step(ip: IpAddr, up: bool) -> Option<IpAddr> {
        match ip {
            IpAddr::V4(v) => {
                let n = u32::from(v);
                let next = if up {
                    n.checked_add(1)
                } else {
                    n.checked_sub(1)
                };
                next.map(|n| IpAddr::V4(n.into()))
            }
            IpAddr::V6(v) => {
                let n = u128::from(v);
                let next = if up {
                    n.checked_add(1)
                } else {
                    n.checked_sub(1)
                };
                next.map(|n| IpAddr::V6(n.into()))
            }
        }
    }

    fn in_any_range(ip: IpAddr) -> bool {
        BLOCKED_RANGES.iter().any(|r| r.contains(ip))
    }

    #[test]
    fn every_range_edge_is_refused_and_its_outside_neighbour_judged_by_the_table() {
        for range in BLOCKED_RANGES {
            let (first, last) = range.bounds();
            assert!(blocked_range(first).is_some(), "{range}: first {first}");
            assert!(blocked_range(last).is_some(), "{range}: last {last}");
            for outside in [step(first, false), step(last, true)].into_iter().flatten() {
                if !in_any_range(outside) && !in_any_range(canonical(outside)) {
                    assert_eq!(blocked_range(outside), None, "{range}: neighbour {outside}");
                }
            }
        }
        // Hand-checked neighbours, so the test does not only trust the table.
        for (a, blocked) in [
            ("9.255.255.255", false),
            ("11.0.0.0", false),
            ("100.63.255.255", false),
            ("100.128.0.0", false),
            ("126.255.255.255", false),
            ("128.0.0.0", false),
            ("169.253.255.255", false),
            ("169.255.0.0", false),
            ("172.15.255.255", false),
            ("172.32.0.0", false),
            ("192.167.255.255", false),
            ("192.169.0.0", false),
            ("198.17.255.255", false),
            ("198.20.0.0", false),
            ("223.255.255.255", false),
            ("224.0.0.0", true),
            ("1.0.0.0", false),
            ("0.255.255.255", true),
            ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
            ("2000::", false),
            ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true),
            ("3fff:1000::", false),
            ("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("4000::", true),
            ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("2001:db9::", false),
            ("2001:200::", false),
            ("2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ] {
            assert_eq!(blocked_range(ip(a)).is_some(), blocked, "{a}");
        }
    }

    /// `hex` with every other letter upper case (`0xaBcD`).
    fn mixed_case(hex: &str) -> String {
        hex.chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 1 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect()
    }

    fn any_range() -> impl Strategy<Value = BlockedRange> {
        prop::sample::select(BLOCKED_RANGES)
    }

    proptest! {
        #[test]
        fn any_address_inside_a_range_is_refused(range in any_range(), bits in any::<u128>()) {
            let (first, last) = range.bounds();
            let inside = match (first, last) {
                (IpAddr::V4(f), IpAddr::V4(l)) => {
                    let span = u64::from(u32::from(l) - u32::from(f)) + 1;
                    let offset = u32::try_from(u64::try_from(bits % u128::from(span)).unwrap_or(0)).unwrap_or(0);
                    IpAddr::V4((u32::from(f) + offset).into())
                }
                (IpAddr::V6(f), IpAddr::V6(l)) => {
                    let span = u128::from(l) - u128::from(f);
                    let offset = if span == u128::MAX { bits } else { bits % (span + 1) };
                    IpAddr::V6((u128::from(f) + offset).into())
                }
                _ => unreachable!("a range's bounds share its family"),
            };
            prop_assert!(blocked_range(inside).is_some(), "{} in {}", inside, range);
        }

        #[test]
        fn ipv4_wrapped_in_ipv6_is_judged_like_the_ipv4(bits in any::<u32>()) {
            let v4 = Ipv4Addr::from(bits);
            let o = v4.octets();
            let plain = blocked_range(IpAddr::V4(v4)).map(|r| r.rule);
            let mapped = IpAddr::V6(v4.to_ipv6_mapped());
            let nat64 = IpAddr::V6(Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0,
                u16::from_be_bytes([o[0], o[1]]), u16::from_be_bytes([o[2], o[3]])));
            let six_to_four = IpAddr::V6(Ipv6Addr::new(0x2002,
                u16::from_be_bytes([o[0], o[1]]), u16::from_be_bytes([o[2], o[3]]), 0, 0, 0, 0, 1));
            prop_assert_eq!(blocked_range(mapped).map(|r| r.rule), plain);
            prop_assert_eq!(blocked_range(nat64).map(|r| r.rule), plain);
            prop_assert_eq!(blocked_range(six_to_four).map(|r| r.rule), plain);
        }

        #[test]
        fn decimal_and_hex_spellings_are_judged_like_dotted(bits in any::<u32>()) {
            let dotted = Ipv4Addr::from(bits);
            let g = strict();
            let expect = g.check_url(&format!("http://{dotted}/")).is_ok();
            prop_assert_eq!(g.check_url(&format!("http://{bits}/")).is_ok(), expect);
            prop_assert_eq!(g.check_url(&format!("http://0x{bits:x}/")).is_ok(), expect);
            prop_assert_eq!(g.check_url(&format!("http://0{bits:o}/")).is_ok(), expect);
        }

        #[test]
        fn no_spelling_of_an_address_changes_its_verdict(bits in any::<u32>(), forms in any::<[u8; 4]>()) {
            let g = strict();
            let o = Ipv4Addr::from(bits).octets();
            let expect = g.check_url(&format!("http://{}/", Ipv4Addr::from(bits))).is_ok();
            // Each part in decimal, hex (any case) or octal, as inet_aton reads them.
            let part = |n: u32, form: u8| match form % 5 {
                0 => n.to_string(),
                1 => format!("0x{n:x}"),
                2 => format!("0X{n:X}"),
                3 => format!("0x{}", mixed_case(&format!("{n:x}"))),
                _ => format!("0{n:o}"),
            };
            let [a, b, c, d] = o.map(u32::from);
            let spellings = [
                format!("{}.{}.{}.{}", part(a, forms[0]), part(b, forms[1]), part(c, forms[2]), part(d, forms[3])),
                format!("{}.{}.{}", part(a, forms[0]), part(b, forms[1]), part((c << 8) | d, forms[2])),
                format!("{}.{}", part(a, forms[0]), part((b << 16) | (c << 8) | d, forms[1])),
                format!("[::ffff:{}]", Ipv4Addr::from(bits)),
                format!("[0:0:0:0:0:FFFF:{:x}:{:x}]", (a << 8) | b, (c << 8) | d),
            ];
            for host in spellings {
                let url = format!("http://{host}/");
                prop_assert_eq!(g.check_url(&url).is_ok(), expect, "{}", url);
                let upper = format!("HTTP://{host}:80/");
                prop_assert_eq!(g.check_url(&upper).is_ok(), expect, "{}", upper);
                // A trailing dot (the root of DNS) does not make an address a name.
                if !host.starts_with('[') {
                    let dotted = format!("https://{host}./");
                    prop_assert_eq!(g.check_url(&dotted).is_ok(), expect, "{}", dotted);
                }
            }
        }
    }
}
