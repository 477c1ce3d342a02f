//! Stand-alone resolutions: one volley or one first round between inline units (§14.2).

use super::*;

/// The unit given inline at `field` (an id is no unit here), checked as a scenario's would be.
pub(super) fn inline_unit(r: &UnitRef, field: &str, side: &str) -> Result<Unit, Rejection> {
    let at = |f: &str| format!("{field}.{f}");
    let none = InlineUnit::default();
    let v = match r {
        UnitRef::Inline(v) => v.as_ref(),
        UnitRef::Id(_) => &none,
    };
    let t = v.troop.as_deref().ok_or_else(|| {
        Rejection::new(
            "missing-field",
            Some(&at("type")),
            m("callan.reject.missing", &[("field", at("type"))]),
        )
    })?;
    let Some(troop) = Troop::from_id(t) else {
        return Err(Rejection::new(
            "unknown-type",
            Some(&at("type")),
            m(
                "callan.reject.unknown-type",
                &[
                    ("type", crate::text::quoted(t)),
                    (
                        "allowed",
                        TROOPS.iter().map(|t| t.id()).collect::<Vec<_>>().join(", "),
                    ),
                ],
            ),
        ));
    };
    let bases = in_range(&at("bases"), v.bases.unwrap_or(0), 1, 16)?;
    let allowed = game::flags_for(troop);
    if let Some(bad) = v.flags.iter().find(|f| !allowed.contains(&f.as_str())) {
        return Err(Rejection::new(
            "bad-flag",
            Some(&at("flags")),
            m(
                "callan.reject.flag",
                &[
                    ("flag", crate::text::quoted(bad)),
                    ("allowed", allowed.join(", ")),
                ],
            ),
        ));
    }
    let mut flags = v.flags.clone();
    if v.commander {
        flags.push("comandante".into());
    }
    Ok(Unit {
        id: field.to_string(),
        // Text the sender wrote: never read as a marker.
        name: v
            .name
            .as_deref()
            .map_or_else(|| t.to_string(), |n| tercio_i18n::plain(n).into_owned())
            .into(),
        side: side.to_string(),
        troop: t.to_string(),
        bases: u8::try_from(bases).unwrap_or(1),
        leader: format!("{side}-cmd"),
        flags,
        nationality: v.nationality.clone(),
    })
}

/// A `fire` or `attack` between units given inline: the units are put into a battle of their
/// own, at the card of the action, and the action names them there.
pub(super) fn standalone(action: &Action) -> Result<Plan<Outcome<Value>>, Rejection> {
    let (fa, fb, ra, rb) = match action {
        Action::Fire { unit, target, .. } => ("unit", "target", unit, target),
        Action::Attack {
            attacker, defender, ..
        } => ("attacker", "defender", attacker, defender),
        _ => {
            return Err(Rejection::new(
                "unknown-action",
                Some("action"),
                k("callan.reject.standalone"),
            ))
        }
    };
    let mut ua = inline_unit(ra, fa, "a")?;
    let mut ub = inline_unit(rb, fb, "b")?;
    // Two units of one name (both left to their type's name, say) are told apart by their
    // role, so that no two facets of an outcome share a name (project design, §14.8).
    if ua.name == ub.name {
        let roles = if fa == "unit" {
            ["firer", "target"]
        } else {
            ["attacker", "defender"]
        };
        for (u, role) in [(&mut ua, roles[0]), (&mut ub, roles[1])] {
            u.name = m(
                "callan.standalone.named",
                &[
                    ("unit", u.name.message().into_owned()),
                    ("role", format!("@callan.role.{role}")),
                ],
            )
            .into();
        }
    }
    // Commanders only where the request says so.
    let wants = |r: &UnitRef| matches!(r, UnitRef::Inline(u) if u.commander);
    let commanded = [wants(ra), wants(rb)];
    let side = |id: &str| Side {
        id: id.into(),
        name: id.into(),
        role: Role::Attacker,
        colour: "red".into(),
        camp: false,
    };
    let names = [
        ua.name.message().into_owned(),
        ub.name.message().into_owned(),
    ];
    let leader = |side: &str| Leader {
        id: format!("{side}-cmd"),
        name: m(
            "callan.commander.of",
            &[("unit", names[usize::from(side == "b")].clone())],
        )
        .into(),
        side: side.into(),
        bonus: 0,
        rank: Rank::Army,
    };
    let sc = Scenario::built(crate::interface::scenario::ScenarioFile {
        ruleset: super::RULESET_ID.into(),
        title: crate::interface::scenario::Text::default(),
        date: None,
        place: None,
        notes: None,
        sources: Vec::new(),
        sides: vec![side("a"), side("b")],
        leaders: vec![leader("a"), leader("b")],
        units: vec![ua, ub],
        house_rules: Default::default(),
        obstacles: Vec::new(),
    });
    let mut st = game::initial(&sc).map_err(|e| Rejection::new("bad-unit", None, e))?;
    st.phase = Phase::Cards;
    st.turn = 1;
    for u in st.units.iter_mut() {
        u.status = Status::Ok;
    }
    for c in st.commanders.iter_mut() {
        let side = c.side;
        let led = st
            .units
            .iter()
            .find(|u| u.side == side)
            .map(|u| u.id.clone());
        c.unit = if commanded[usize::from(side != 0)] {
            led
        } else {
            None
        };
    }
    let fire = matches!(action, Action::Fire { .. });
    let attacker_cav = st.units[0].troop.is_cavalry();
    st.open = Some(game::Open {
        side: Some(0),
        phase: if fire {
            CardPhase::Fire
        } else if attacker_cav {
            CardPhase::Cavalry
        } else {
            CardPhase::Infantry
        },
        repeat: None,
        joker_used: false,
        troops_moved: false,
    });
    let gun = st.units[0].troop.is_gun();
    let mut a = action.clone();
    match &mut a {
        Action::Fire {
            unit,
            target,
            nearest,
            ..
        } => {
            *unit = UnitRef::Id(fa.into());
            *target = UnitRef::Id(fb.into());
            if gun && nearest.is_none() {
                *nearest = Some(true);
            }
        }
        Action::Attack {
            attacker, defender, ..
        } => {
            *attacker = UnitRef::Id(fa.into());
            *defender = UnitRef::Id(fb.into());
        }
        _ => {}
    }
    let name = action.name();
    // No one is there to answer whether an attacked unit evades: the fight's odds, as in a game's
    // preview, and the resolution says so (D70).
    if let Some((a, who)) = game::assuming_it_stands(&st, &a) {
        return Ok(
            game::plan(&st, &a)?.map(move |r| outcome(name, None, game::note_it_stands(r, &who)))
        );
    }
    Ok(game::plan(&st, &a)?.map(move |r| outcome(name, None, r)))
}
