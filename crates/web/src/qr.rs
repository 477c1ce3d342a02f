//! Seat links as QR codes, drawn as SVG (the seats panel shows one per link, fetched when the
//! panel is first shown: `GET /api/s/{token}/qr`).

use qrcode::QrCode;

/// The quiet zone around a QR code, in modules (the standard's four).
const QR_QUIET: usize = 4;

/// A link's QR code as SVG, four pixels a module: one path of the dark modules' horizontal runs,
/// in module units. The qrcode crate's own SVG draws each module apart, about 10 KB a code, which
/// put the game master's page (three codes at Cerignola) over 100 KB; this is about a quarter.
pub fn svg(data: &str) -> String {
    let Ok(code) = QrCode::new(data.as_bytes()) else {
        return String::new();
    };
    let w = code.width();
    let dark = code.to_colors();
    let dark = |x: usize, y: usize| dark[y * w + x] == qrcode::Color::Dark;
    let mut d = String::new();
    for y in 0..w {
        let mut x = 0;
        while x < w {
            if !dark(x, y) {
                x += 1;
                continue;
            }
            let from = x;
            while x < w && dark(x, y) {
                x += 1;
            }
            let run = x - from;
            d.push_str(&format!(
                "M{} {}h{run}v1h-{run}z",
                from + QR_QUIET,
                y + QR_QUIET
            ));
        }
    }
    let n = w + 2 * QR_QUIET;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{px}\" height=\"{px}\" viewBox=\"0 0 {n} {n}\" shape-rendering=\"crispEdges\"><rect width=\"{n}\" height=\"{n}\" fill=\"#fff\"/><path fill=\"#000\" d=\"{d}\"/></svg>",
        px = n * 4
    )
}

/// The side of `data`'s code as [`svg`] draws it, in pixels (0 when it cannot be drawn).
pub fn side(data: &str) -> usize {
    QrCode::new(data.as_bytes()).map_or(0, |c| c.width() + 2 * QR_QUIET) * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code drawn is the code: the path's runs, read back, are exactly its dark modules,
    /// inside the quiet zone; and it is far smaller than the crate's own drawing.
    #[test]
    fn a_qr_code_is_drawn_as_runs_of_its_dark_modules() {
        let url = "http://192.168.1.20:8080/s/2f7e2f4cd40381ce8d4674f53175bd5e";
        let code = qrcode::QrCode::new(url.as_bytes()).expect("code");
        let w = code.width();
        let svg = svg(url);
        let n = w + 2 * QR_QUIET;
        assert!(svg.contains(&format!("viewBox=\"0 0 {n} {n}\"")), "{svg}");
        let d = &svg[svg.find(" d=\"").expect("path") + 4..];
        let d = &d[..d.find('"').expect("end")];
        let mut drawn = vec![qrcode::Color::Light; w * w];
        for run in d.split('M').filter(|r| !r.is_empty()) {
            let (x, rest) = run.split_once(' ').expect("x");
            let (y, rest) = rest.split_once('h').expect("y");
            let len = rest.split_once('v').expect("len").0;
            let (x, y, len): (usize, usize, usize) =
                (x.parse().unwrap(), y.parse().unwrap(), len.parse().unwrap());
            assert!(
                x >= QR_QUIET && y >= QR_QUIET && x + len <= w + QR_QUIET,
                "{run}"
            );
            for i in 0..len {
                drawn[(y - QR_QUIET) * w + x - QR_QUIET + i] = qrcode::Color::Dark;
            }
        }
        assert_eq!(drawn, code.to_colors());
        let theirs = code
            .render::<qrcode::render::svg::Color>()
            .min_dimensions(148, 148)
            .quiet_zone(true)
            .build();
        assert!(
            svg.len() * 2 < theirs.len(),
            "{} against {}",
            svg.len(),
            theirs.len()
        );
    }
}
