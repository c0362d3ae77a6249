//! The XFCC endpoint ("XfccBasic", SOAP 1.1): `GetMyGames` and `MakeAMove`
//! for chess programs (Scid, Scid vs PC, Lucas Chess…), and its WSDL at
//! `?wsdl`. The wire as clients speak it is in `XFCC.md`; what the two
//! operations do is `service::xfcc`'s.
//!
//! - Requests: `POST` to the configured path; `Content-Type` an XML type
//!   with any charset spelling (or none); `SOAPAction` ignored; dispatch on
//!   the namespace-aware local name of the first child of the SOAP `Body`.
//!   Both the default-namespace and the prefixed styles read the same.
//! - Responses: the exact shapes Scid's regexes expect (no prefixes below
//!   `soap:Body`, the `xmlns` only on the `…Response` element, leaves of
//!   escaped text).
//! - Hostile input: the body is capped at [`MAX_BODY`] bytes (read no
//!   further), the XML parser refuses any DTD (so no entity expansion and
//!   no external entities) and caps the nodes; malformed XML, a DTD, a wrong
//!   content type, an unknown operation each get a `soap:Client` fault
//!   saying what was wrong. Nothing in a request can panic the server.
//!
//! The parser is roxmltree: it refuses a DTD unless
//! `ParsingOptions::allow_dtd` is set ("false by default for security
//! reasons", its docs say, with billion-laughs checks besides), resolves
//! namespaces, never fetches anything, and is already in the dependency
//! tree (through resvg) at the same version. quick-xml would need its
//! entity handling kept off by hand; xml-rs expands internal entities.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

use super::Shared;
use crate::domain::chess::outcome::XfccResult;
use crate::service::xfcc::{self, LoginLimiter, MoveRequest, MoveResult, XfccGame};

/// XFCC's namespace.
pub const NS: &str = "http://www.bennedik.com/webservices/XfccBasic";
/// SOAP 1.1's envelope namespace.
const SOAP_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// SOAP 1.2's, read too (its envelope is the same shape).
const SOAP12_NS: &str = "http://www.w3.org/2003/05/soap-envelope";
/// The largest request body read (a real request is under 2 KiB).
pub const MAX_BODY: usize = 64 * 1024;
/// The most XML nodes a request may have (a real one has about 40).
const MAX_NODES: u32 = 2_000;

/// What a client asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XfccRequest {
    /// `GetMyGames`.
    GetMyGames {
        /// The login.
        username: String,
        /// Its password.
        password: String,
    },
    /// `MakeAMove`.
    MakeAMove {
        /// The login.
        username: String,
        /// Its password.
        password: String,
        /// What to do.
        request: MoveRequest,
    },
}

/// Why a request cannot be read: each is a `soap:Client` fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SoapError {
    /// Not well-formed XML (or over the node limit).
    #[error("the request is not well-formed XML: {0}")]
    Malformed(String),
    /// A document type declaration: never accepted (entities).
    #[error("the request has a DTD (<!DOCTYPE>); DTDs and entities are not accepted")]
    Dtd,
    /// Not a SOAP envelope with a body.
    #[error("the request is not a SOAP 1.1 envelope with a Body")]
    NotSoap,
    /// The body names no operation.
    #[error("the SOAP Body names no operation")]
    NoOperation,
    /// An operation XfccBasic does not have.
    #[error("unknown operation '{0}': this XfccBasic server has GetMyGames and MakeAMove")]
    UnknownOperation(String),
    /// A field that does not read as its type.
    #[error("field '{field}' is not a valid {kind}: '{value}'")]
    BadField {
        /// The field.
        field: &'static str,
        /// Its type.
        kind: &'static str,
        /// What was sent (shortened).
        value: String,
    },
    /// A content type that is not XML.
    #[error("content type '{0}' is not XML: send text/xml")]
    ContentType(String),
    /// Too big.
    #[error("the request is larger than {MAX_BODY} bytes")]
    TooLarge,
    /// Bytes that are not text in the declared charset.
    #[error("the request is not text in charset '{0}'")]
    Charset(String),
}

/// Reads a request's XML.
pub fn parse(xml: &str) -> Result<XfccRequest, SoapError> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(xml, options).map_err(|e| match e {
        roxmltree::Error::DtdDetected => SoapError::Dtd,
        other => SoapError::Malformed(other.to_string()),
    })?;
    let envelope = doc.root_element();
    if envelope.tag_name().name() != "Envelope"
        || !matches!(envelope.tag_name().namespace(), Some(SOAP_NS | SOAP12_NS))
    {
        return Err(SoapError::NotSoap);
    }
    let body = envelope
        .children()
        .filter(roxmltree::Node::is_element)
        .find(|n| n.tag_name().name() == "Body")
        .ok_or(SoapError::NotSoap)?;
    let op = body
        .children()
        .find(roxmltree::Node::is_element)
        .ok_or(SoapError::NoOperation)?;
    let name = op.tag_name().name();
    if !matches!(op.tag_name().namespace(), None | Some(NS)) {
        return Err(SoapError::UnknownOperation(format!(
            "{{{}}}{name}",
            op.tag_name().namespace().unwrap_or_default()
        )));
    }
    let field = |wanted: &str| -> String {
        op.children()
            .find(|n| n.is_element() && n.tag_name().name() == wanted)
            .map(|n| {
                n.descendants()
                    .filter(roxmltree::Node::is_text)
                    .filter_map(|t| t.text())
                    .collect::<String>()
            })
            .unwrap_or_default()
    };
    let username = field("username").trim().to_owned();
    let password = field("password");
    match name {
        "GetMyGames" => Ok(XfccRequest::GetMyGames { username, password }),
        "MakeAMove" => {
            let request = MoveRequest {
                game_id: int(&field("gameId"), "gameId", true)?,
                resign: boolean(&field("resign"), "resign")?,
                accept_draw: boolean(&field("acceptDraw"), "acceptDraw")?,
                movecount: int(&field("movecount"), "movecount", false)?,
                my_move: field("myMove").trim().to_owned(),
                offer_draw: boolean(&field("offerDraw"), "offerDraw")?,
                claim_draw: boolean(&field("claimDraw"), "claimDraw")?,
                my_message: field("myMessage"),
            };
            Ok(XfccRequest::MakeAMove {
                username,
                password,
                request,
            })
        }
        other => Err(SoapError::UnknownOperation(shorten(other))),
    }
}

fn shorten(text: &str) -> String {
    text.chars().take(60).collect()
}

/// An `xs:int`; absent (empty) is 0 unless `required`.
fn int(text: &str, field: &'static str, required: bool) -> Result<i64, SoapError> {
    let text = text.trim();
    if text.is_empty() && !required {
        return Ok(0);
    }
    text.parse().map_err(|_| SoapError::BadField {
        field,
        kind: "integer",
        value: shorten(text),
    })
}

/// An `xs:boolean` (`true`, `false`, `1`, `0`); absent is false.
fn boolean(text: &str, field: &'static str) -> Result<bool, SoapError> {
    match text.trim() {
        "true" | "1" => Ok(true),
        "false" | "0" | "" => Ok(false),
        other => Err(SoapError::BadField {
            field,
            kind: "boolean",
            value: shorten(other),
        }),
    }
}

/// Text escaped for an XML element.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

const ENVELOPE_START: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><soap:Body>";
const ENVELOPE_END: &str = "</soap:Body></soap:Envelope>";

fn bool_text(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// The `GetMyGames` response (the order of the leaves is the WSDL's).
pub fn render_games(games: &[XfccGame]) -> String {
    let mut out = String::from(ENVELOPE_START);
    out.push_str("<GetMyGamesResponse xmlns=\"");
    out.push_str(NS);
    out.push_str("\"><GetMyGamesResult>");
    for g in games {
        out.push_str("<XfccGame>");
        let mut leaf = |name: &str, value: &str| {
            out.push('<');
            out.push_str(name);
            out.push('>');
            out.push_str(&escape(value));
            out.push_str("</");
            out.push_str(name);
            out.push('>');
        };
        leaf("id", &g.id.to_string());
        leaf("white", &g.white);
        leaf("black", &g.black);
        leaf("event", &g.event);
        leaf("site", &g.site);
        leaf("myTurn", bool_text(g.my_turn));
        leaf("hasWhite", bool_text(g.has_white));
        leaf("daysPlayer", &g.player_left.days.to_string());
        leaf("hoursPlayer", &g.player_left.hours.to_string());
        leaf("minutesPlayer", &g.player_left.minutes.to_string());
        leaf("daysOpponent", &g.opponent_left.days.to_string());
        leaf("hoursOpponent", &g.opponent_left.hours.to_string());
        leaf("minutesOpponent", &g.opponent_left.minutes.to_string());
        leaf("moves", &g.moves);
        leaf("drawOffered", bool_text(g.draw_offered));
        leaf("result", g.result.as_str());
        leaf(
            "eventDate",
            &crate::domain::chess::pgn::pgn_date(g.event_date),
        );
        if let Some(fen) = &g.fen {
            leaf("setup", "true");
            leaf("fen", fen);
        }
        if let Some(elo) = g.elo[0] {
            leaf("whiteElo", &elo.to_string());
        }
        if let Some(elo) = g.elo[1] {
            leaf("blackElo", &elo.to_string());
        }
        leaf("timeControl", &g.time_control);
        if let Some(message) = &g.message {
            leaf("message", message);
        }
        out.push_str("</XfccGame>");
    }
    out.push_str("</GetMyGamesResult></GetMyGamesResponse>");
    out.push_str(ENVELOPE_END);
    out
}

/// The `MakeAMove` response.
pub fn render_result(result: MoveResult) -> String {
    format!(
        "{ENVELOPE_START}<MakeAMoveResponse xmlns=\"{NS}\"><MakeAMoveResult>{}</MakeAMoveResult></MakeAMoveResponse>{ENVELOPE_END}",
        result.as_str()
    )
}

/// A SOAP 1.1 fault (`soap:Client` or `soap:Server`), with the literal
/// `soap:` prefix clients look for.
pub fn render_fault(code: &str, text: &str) -> String {
    format!(
        "{ENVELOPE_START}<soap:Fault><faultcode>{}</faultcode><faultstring>{}</faultstring></soap:Fault>{ENVELOPE_END}",
        escape(code),
        escape(text)
    )
}

/// The WSDL (document/literal wrapped) for an endpoint at `location`.
pub fn wsdl(location: &str) -> String {
    let results = [
        XfccResult::Ongoing,
        XfccResult::WhiteWins,
        XfccResult::BlackWins,
        XfccResult::Draw,
        XfccResult::WhiteWinAdjudicated,
        XfccResult::BlackWinAdjudicated,
        XfccResult::DrawAdjudicated,
        XfccResult::WhiteDefaulted,
        XfccResult::BlackDefaulted,
        XfccResult::BothDefaulted,
        XfccResult::Cancelled,
        XfccResult::AdjudicationPending,
    ]
    .map(|r| format!("<s:enumeration value=\"{}\"/>", r.as_str()))
    .concat();
    let codes = [
        "Success",
        "ServerError",
        "AuthenticationFailed",
        "InvalidGameID",
        "NotYourGame",
        "NotYourTurn",
        "InvalidMoveNumber",
        "InvalidMove",
        "NoDrawWasOffered",
        "LostOnTime",
        "YouAreOnLeave",
        "MoveIsAmbigous",
        "ClaimsNotSupported",
        "MustOfferDraw",
        "CannotOfferDraw",
        "TournamentNotYetStarted",
    ]
    .map(|c| format!("<s:enumeration value=\"{c}\"/>"))
    .concat();
    let location = escape(location);
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:tns="{NS}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" targetNamespace="{NS}">
  <wsdl:types>
    <s:schema elementFormDefault="qualified" targetNamespace="{NS}">
      <s:element name="GetMyGames">
        <s:complexType><s:sequence>
          <s:element minOccurs="0" maxOccurs="1" name="username" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="password" type="s:string"/>
        </s:sequence></s:complexType>
      </s:element>
      <s:element name="GetMyGamesResponse">
        <s:complexType><s:sequence>
          <s:element minOccurs="0" maxOccurs="1" name="GetMyGamesResult" type="tns:ArrayOfXfccGame"/>
        </s:sequence></s:complexType>
      </s:element>
      <s:complexType name="ArrayOfXfccGame">
        <s:sequence>
          <s:element minOccurs="0" maxOccurs="unbounded" name="XfccGame" type="tns:XfccGame"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="XfccGame">
        <s:sequence>
          <s:element minOccurs="1" maxOccurs="1" name="id" type="s:int"/>
          <s:element minOccurs="0" maxOccurs="1" name="white" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="black" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="event" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="site" type="s:string"/>
          <s:element minOccurs="1" maxOccurs="1" name="myTurn" type="s:boolean"/>
          <s:element minOccurs="1" maxOccurs="1" name="hasWhite" type="s:boolean"/>
          <s:element minOccurs="1" maxOccurs="1" name="daysPlayer" type="s:int"/>
          <s:element minOccurs="1" maxOccurs="1" name="hoursPlayer" type="s:int"/>
          <s:element minOccurs="1" maxOccurs="1" name="minutesPlayer" type="s:int"/>
          <s:element minOccurs="1" maxOccurs="1" name="daysOpponent" type="s:int"/>
          <s:element minOccurs="1" maxOccurs="1" name="hoursOpponent" type="s:int"/>
          <s:element minOccurs="1" maxOccurs="1" name="minutesOpponent" type="s:int"/>
          <s:element minOccurs="0" maxOccurs="1" name="moves" type="s:string"/>
          <s:element minOccurs="1" maxOccurs="1" name="drawOffered" type="s:boolean"/>
          <s:element minOccurs="1" maxOccurs="1" name="result" type="tns:Result"/>
          <s:element minOccurs="0" maxOccurs="1" name="eventDate" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="setup" type="s:boolean"/>
          <s:element minOccurs="0" maxOccurs="1" name="fen" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="whiteElo" type="s:int"/>
          <s:element minOccurs="0" maxOccurs="1" name="blackElo" type="s:int"/>
          <s:element minOccurs="0" maxOccurs="1" name="timeControl" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="message" type="s:string"/>
        </s:sequence>
      </s:complexType>
      <s:simpleType name="Result">
        <s:restriction base="s:string">{results}</s:restriction>
      </s:simpleType>
      <s:element name="MakeAMove">
        <s:complexType><s:sequence>
          <s:element minOccurs="0" maxOccurs="1" name="username" type="s:string"/>
          <s:element minOccurs="0" maxOccurs="1" name="password" type="s:string"/>
          <s:element minOccurs="1" maxOccurs="1" name="gameId" type="s:int"/>
          <s:element minOccurs="1" maxOccurs="1" name="resign" type="s:boolean"/>
          <s:element minOccurs="1" maxOccurs="1" name="acceptDraw" type="s:boolean"/>
          <s:element minOccurs="1" maxOccurs="1" name="movecount" type="s:int"/>
          <s:element minOccurs="0" maxOccurs="1" name="myMove" type="s:string"/>
          <s:element minOccurs="1" maxOccurs="1" name="offerDraw" type="s:boolean"/>
          <s:element minOccurs="1" maxOccurs="1" name="claimDraw" type="s:boolean"/>
          <s:element minOccurs="0" maxOccurs="1" name="myMessage" type="s:string"/>
        </s:sequence></s:complexType>
      </s:element>
      <s:element name="MakeAMoveResponse">
        <s:complexType><s:sequence>
          <s:element minOccurs="1" maxOccurs="1" name="MakeAMoveResult" type="tns:MakeAMoveResult"/>
        </s:sequence></s:complexType>
      </s:element>
      <s:simpleType name="MakeAMoveResult">
        <s:restriction base="s:string">{codes}</s:restriction>
      </s:simpleType>
    </s:schema>
  </wsdl:types>
  <wsdl:message name="GetMyGamesSoapIn"><wsdl:part name="parameters" element="tns:GetMyGames"/></wsdl:message>
  <wsdl:message name="GetMyGamesSoapOut"><wsdl:part name="parameters" element="tns:GetMyGamesResponse"/></wsdl:message>
  <wsdl:message name="MakeAMoveSoapIn"><wsdl:part name="parameters" element="tns:MakeAMove"/></wsdl:message>
  <wsdl:message name="MakeAMoveSoapOut"><wsdl:part name="parameters" element="tns:MakeAMoveResponse"/></wsdl:message>
  <wsdl:portType name="XfccBasicSoap">
    <wsdl:operation name="GetMyGames">
      <wsdl:input message="tns:GetMyGamesSoapIn"/>
      <wsdl:output message="tns:GetMyGamesSoapOut"/>
    </wsdl:operation>
    <wsdl:operation name="MakeAMove">
      <wsdl:input message="tns:MakeAMoveSoapIn"/>
      <wsdl:output message="tns:MakeAMoveSoapOut"/>
    </wsdl:operation>
  </wsdl:portType>
  <wsdl:binding name="XfccBasicSoap" type="tns:XfccBasicSoap">
    <soap:binding transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="GetMyGames">
      <soap:operation soapAction="{NS}/GetMyGames" style="document"/>
      <wsdl:input><soap:body use="literal"/></wsdl:input>
      <wsdl:output><soap:body use="literal"/></wsdl:output>
    </wsdl:operation>
    <wsdl:operation name="MakeAMove">
      <soap:operation soapAction="{NS}/MakeAMove" style="document"/>
      <wsdl:input><soap:body use="literal"/></wsdl:input>
      <wsdl:output><soap:body use="literal"/></wsdl:output>
    </wsdl:operation>
  </wsdl:binding>
  <wsdl:service name="XfccBasic">
    <wsdl:port name="XfccBasicSoap" binding="tns:XfccBasicSoap">
      <soap:address location="{location}"/>
    </wsdl:port>
  </wsdl:service>
</wsdl:definitions>
"#
    )
}

/// The XFCC routes at `path` (`[web] xfcc_path`): `POST` for the two
/// operations, `GET ?wsdl` for the WSDL.
pub fn routes(path: &str) -> Router<Shared> {
    let limiter = Arc::new(LoginLimiter::new());
    let path_owned = path.to_owned();
    Router::new().route(
        path,
        post({
            let limiter = limiter.clone();
            move |State(web): State<Shared>, req: Request| endpoint(web, limiter, req)
        })
        .get(move |State(web): State<Shared>, req: Request| {
            let path = path_owned.clone();
            async move { get(&web, &path, &req) }
        }),
    )
}

fn xml_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/xml; charset=utf-8")],
        body,
    )
        .into_response()
}

fn fault(status: StatusCode, code: &str, text: &str) -> Response {
    xml_response(status, render_fault(code, text))
}

/// `GET`: the WSDL at `?wsdl` (any case), else a line saying what this is.
fn get(web: &Shared, path: &str, req: &Request) -> Response {
    let asks_wsdl = req.uri().query().is_some_and(|q| {
        q.split('&').any(|p| {
            let key = p.split('=').next().unwrap_or("");
            key.eq_ignore_ascii_case("wsdl")
        })
    });
    if !asks_wsdl {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "This is dopis's XFCC (XfccBasic) endpoint: point your chess program's \
             correspondence server settings here. The WSDL is at ?wsdl.\n",
        )
            .into_response();
    }
    let location = match &web.base_url {
        Some(base) => format!("{base}{path}"),
        None => {
            let host = req
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("localhost");
            format!("http://{host}{path}")
        }
    };
    xml_response(StatusCode::OK, wsdl(&location))
}

/// The client's address: the peer, or (when the peer is a proxy on this
/// machine) the last address it put in `X-Forwarded-For`.
fn client_of(headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<IpAddr> {
    let peer = peer.map(|p| p.ip());
    if peer.is_none_or(|ip| ip.is_loopback())
        && let Some(forwarded) = headers
            .get("x-forwarded-for")
            .and_then(|h| h.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse().ok())
    {
        return Some(forwarded);
    }
    peer
}

/// The charset named by a content type, if any (`charset=utf-8`,
/// `charset="utf-8"`, any case).
fn charset_of(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').trim_matches('\'').to_owned())
    })
}

/// Reads the body as text: an XML content type (or none), at most
/// [`MAX_BODY`] bytes, in its charset.
async fn body_text(headers: &HeaderMap, body: Body) -> Result<String, SoapError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned());
    if let Some(ct) = &content_type {
        let mime = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !matches!(
            mime.as_str(),
            "text/xml" | "application/xml" | "application/soap+xml"
        ) {
            return Err(SoapError::ContentType(shorten(ct)));
        }
    }
    let bytes = to_bytes(body, MAX_BODY)
        .await
        .map_err(|_| SoapError::TooLarge)?;
    let charset = content_type
        .as_deref()
        .and_then(charset_of)
        .unwrap_or_else(|| "utf-8".to_owned());
    let encoding = encoding_rs::Encoding::for_label(charset.as_bytes())
        .ok_or_else(|| SoapError::Charset(shorten(&charset)))?;
    // The declared charset wins (no sniffing of another BOM); its own BOM
    // is dropped.
    let (text, bad) = encoding.decode_with_bom_removal(&bytes);
    if bad {
        return Err(SoapError::Charset(shorten(&charset)));
    }
    Ok(text.into_owned())
}

async fn endpoint(web: Shared, limiter: Arc<LoginLimiter>, req: Request) -> Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let (parts, body) = req.into_parts();
    let client = client_of(&parts.headers, peer);
    let now = web.clock.now();
    let text = match body_text(&parts.headers, body).await {
        Ok(t) => t,
        Err(e) => {
            let status = match e {
                SoapError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
                SoapError::ContentType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
                _ => StatusCode::BAD_REQUEST,
            };
            return fault(status, "soap:Client", &e.to_string());
        }
    };
    let request = match parse(&text) {
        Ok(r) => r,
        Err(e) => {
            return fault(
                StatusCode::INTERNAL_SERVER_ERROR,
                "soap:Client",
                &e.to_string(),
            );
        }
    };
    let (username, password) = match &request {
        XfccRequest::GetMyGames { username, password }
        | XfccRequest::MakeAMove {
            username, password, ..
        } => (username.as_str(), password.as_str()),
    };
    let player =
        match xfcc::authenticate(&web.store, &limiter, username, password, client, now).await {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(error = %e, "XFCC login: database failed");
                return server_error(&request);
            }
        };
    match (request, player) {
        (XfccRequest::GetMyGames { .. }, None) => fault(
            StatusCode::INTERNAL_SERVER_ERROR,
            "soap:Client",
            "AuthenticationFailed",
        ),
        (XfccRequest::MakeAMove { .. }, None) => xml_response(
            StatusCode::OK,
            render_result(MoveResult::AuthenticationFailed),
        ),
        (XfccRequest::GetMyGames { .. }, Some(player)) => {
            match xfcc::my_games(&web.store, &web.post.name, &player, now).await {
                Ok(games) => xml_response(StatusCode::OK, render_games(&games)),
                Err(e) => {
                    tracing::error!(error = %e, "XFCC GetMyGames failed");
                    fault(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "soap:Server",
                        "ServerError",
                    )
                }
            }
        }
        (XfccRequest::MakeAMove { request, .. }, Some(player)) => {
            let result =
                match xfcc::make_a_move(&web.store, &web.inbox, &player, &request, now).await {
                    Ok(r) => r,
                    Err(e) => {
                        tracing::error!(error = %e, "XFCC MakeAMove failed");
                        MoveResult::ServerError
                    }
                };
            xml_response(StatusCode::OK, render_result(result))
        }
    }
}

fn server_error(request: &XfccRequest) -> Response {
    match request {
        XfccRequest::GetMyGames { .. } => fault(
            StatusCode::INTERNAL_SERVER_ERROR,
            "soap:Server",
            "ServerError",
        ),
        XfccRequest::MakeAMove { .. } => {
            xml_response(StatusCode::OK, render_result(MoveResult::ServerError))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::xfcc::TimeLeft;

    const SCID_GET: &str = r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetMyGames xmlns="http://www.bennedik.com/webservices/XfccBasic"><username>ana@example.org</username><password>s3cret &amp; more</password></GetMyGames></soap:Body></soap:Envelope>"#;

    #[test]
    fn scids_get_my_games_reads() {
        assert_eq!(
            parse(SCID_GET),
            Ok(XfccRequest::GetMyGames {
                username: "ana@example.org".into(),
                password: "s3cret & more".into()
            })
        );
    }

    #[test]
    fn the_prefixed_style_with_a_header_and_whitespace_reads_the_same() {
        let xml = "<?xml version=\"1.0\"?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:ns=\"http://www.bennedik.com/webservices/XfccBasic\">\n\t<SOAP-ENV:Header/>\n\t<SOAP-ENV:Body>\n\t\t<ns:MakeAMove>\n\t\t\t<ns:username>ana@example.org</ns:username>\n\t\t\t<ns:password>pw</ns:password>\n\t\t\t<ns:gameId>12</ns:gameId>\n\t\t\t<ns:resign>false</ns:resign>\n\t\t\t<ns:acceptDraw>false</ns:acceptDraw>\n\t\t\t<ns:movecount>3</ns:movecount>\n\t\t\t<ns:myMove>Bb5</ns:myMove>\n\t\t\t<ns:offerDraw>true</ns:offerDraw>\n\t\t\t<ns:claimDraw>false</ns:claimDraw>\n\t\t\t<ns:myMessage>hi</ns:myMessage>\n\t\t</ns:MakeAMove>\n\t</SOAP-ENV:Body>\n</SOAP-ENV:Envelope>\n";
        assert_eq!(
            parse(xml),
            Ok(XfccRequest::MakeAMove {
                username: "ana@example.org".into(),
                password: "pw".into(),
                request: MoveRequest {
                    game_id: 12,
                    movecount: 3,
                    my_move: "Bb5".into(),
                    offer_draw: true,
                    my_message: "hi".into(),
                    ..MoveRequest::default()
                }
            })
        );
    }

    #[test]
    fn hostile_and_broken_requests_are_refused_with_a_reason() {
        let laughs = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetMyGames xmlns="http://www.bennedik.com/webservices/XfccBasic"><username>&lol3;</username></GetMyGames></soap:Body></soap:Envelope>"#;
        assert_eq!(parse(laughs), Err(SoapError::Dtd));
        let external = r#"<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetMyGames xmlns="http://www.bennedik.com/webservices/XfccBasic"><username>&xxe;</username></GetMyGames></soap:Body></soap:Envelope>"#;
        assert_eq!(parse(external), Err(SoapError::Dtd));
        assert!(matches!(
            parse("<soap:Envelope><unclosed>"),
            Err(SoapError::Malformed(_))
        ));
        assert_eq!(parse("<a/>"), Err(SoapError::NotSoap));
        let unknown = SCID_GET.replace("GetMyGames", "DeleteAllGames");
        assert_eq!(
            parse(&unknown),
            Err(SoapError::UnknownOperation("DeleteAllGames".into()))
        );
        let bad_id = r#"<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><MakeAMove xmlns="http://www.bennedik.com/webservices/XfccBasic"><gameId>12-3</gameId></MakeAMove></Body></Envelope>"#;
        assert!(matches!(
            parse(bad_id),
            Err(SoapError::BadField {
                field: "gameId",
                ..
            })
        ));
        // Deep nesting and many nodes stop at the node limit.
        let deep = format!(
            "<soap:Envelope xmlns:soap=\"{SOAP_NS}\"><soap:Body>{}</soap:Body></soap:Envelope>",
            "<a>".repeat(5000)
        );
        assert!(matches!(parse(&deep), Err(SoapError::Malformed(_))));
    }

    fn game() -> XfccGame {
        XfccGame {
            id: 7,
            white: "Ana <Novak> & co".into(),
            black: "Bo".into(),
            event: "Club".into(),
            site: "dopis".into(),
            my_turn: true,
            has_white: false,
            player_left: TimeLeft {
                days: 2,
                hours: 3,
                minutes: 4,
            },
            opponent_left: TimeLeft {
                days: 3,
                hours: 0,
                minutes: 0,
            },
            moves: "1. e4".into(),
            draw_offered: false,
            result: XfccResult::Ongoing,
            event_date: chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
            fen: None,
            elo: [Some(1800), None],
            time_control: "1/259200".into(),
            message: Some("hello".into()),
        }
    }

    #[test]
    fn the_games_response_has_the_exact_shape_scid_reads() {
        let xml = render_games(&[game(), XfccGame { id: 8, ..game() }]);
        assert!(xml.contains("<soap:Body><GetMyGamesResponse xmlns=\"http://www.bennedik.com/webservices/XfccBasic\"><GetMyGamesResult><XfccGame><id>7</id><white>Ana &lt;Novak&gt; &amp; co</white><black>Bo</black><event>Club</event><site>dopis</site><myTurn>true</myTurn><hasWhite>false</hasWhite><daysPlayer>2</daysPlayer><hoursPlayer>3</hoursPlayer><minutesPlayer>4</minutesPlayer><daysOpponent>3</daysOpponent><hoursOpponent>0</hoursOpponent><minutesOpponent>0</minutesOpponent><moves>1. e4</moves><drawOffered>false</drawOffered><result>Ongoing</result><eventDate>2026.12.01</eventDate><whiteElo>1800</whiteElo><timeControl>1/259200</timeControl><message>hello</message></XfccGame><XfccGame><id>8</id>"), "{xml}");
        assert!(xml.ends_with("</message></XfccGame></GetMyGamesResult></GetMyGamesResponse></soap:Body></soap:Envelope>"), "{xml}");
        // It reads back as XML, and a game without games is an empty result.
        assert!(roxmltree::Document::parse(&xml).is_ok());
        assert!(render_games(&[]).contains("<GetMyGamesResult></GetMyGamesResult>"));
    }

    #[test]
    fn a_name_with_an_id_tag_in_it_stays_inside_its_game() {
        // A name is escaped, so "<id>" in it cannot open a new game.
        let xml = render_games(&[XfccGame {
            white: "<id>9</id>".into(),
            ..game()
        }]);
        assert_eq!(xml.matches("<XfccGame>").count(), 1, "{xml}");
    }

    #[test]
    fn results_and_faults_have_the_shapes_clients_match() {
        assert!(render_result(MoveResult::MoveIsAmbigous).contains("<soap:Body><MakeAMoveResponse xmlns=\"http://www.bennedik.com/webservices/XfccBasic\"><MakeAMoveResult>MoveIsAmbigous</MakeAMoveResult></MakeAMoveResponse></soap:Body>"));
        assert!(render_fault("soap:Client", "AuthenticationFailed").contains("<soap:Fault><faultcode>soap:Client</faultcode><faultstring>AuthenticationFailed</faultstring></soap:Fault>"));
    }

    #[test]
    fn the_wsdl_is_xml_and_points_at_the_endpoint() {
        let w = wsdl("https://chess.example.org/xfcc/xfccbasic.asmx");
        let doc = roxmltree::Document::parse(&w).unwrap();
        assert!(w.contains("location=\"https://chess.example.org/xfcc/xfccbasic.asmx\""));
        assert!(w.contains("<s:enumeration value=\"MoveIsAmbigous\"/>"));
        assert!(w.contains("<s:enumeration value=\"WhiteWinAdjudicated\"/>"));
        assert_eq!(
            doc.descendants()
                .filter(|n| n.tag_name().name() == "operation")
                .count(),
            // Two in the port type, two in the binding with their SOAP actions.
            6
        );
    }

    #[test]
    fn charsets_are_read_in_every_spelling() {
        assert_eq!(
            charset_of("text/xml; charset=utf-8").as_deref(),
            Some("utf-8")
        );
        assert_eq!(
            charset_of("text/xml; charset=\"utf-8\"").as_deref(),
            Some("utf-8")
        );
        assert_eq!(
            charset_of("text/xml;Charset=UTF-8").as_deref(),
            Some("UTF-8")
        );
        assert_eq!(charset_of("text/xml"), None);
    }
}
