//! The scenario's army.

use super::*;

/// Every unit flag the rule set reads (§14.3).
pub fn flags_for(troop: Troop) -> Vec<&'static str> {
    let mut f = vec!["veterani", "reclute", "riserva", "comandante"];
    f.extend(REINFORCEMENT_FLAGS);
    match troop {
        Troop::Picchieri => {
            f.extend(SCREEN_FLAGS);
            f.extend([
                "doppelsoldner",
                "rodeleros",
                "alabardieri",
                "tercio",
                "colunella",
            ]);
        }
        Troop::CavalleriaLeggera => {
            f.extend(["giavellotti", "balestre", "archibugi", "ordine-aperto"])
        }
        Troop::Archibugieri | Troop::Balestrieri | Troop::Arcieri => f.push("ordine-aperto"),
        _ => {}
    }
    f
}

pub const SCREEN_FLAGS: [&str; 12] = [
    "schermo-1",
    "schermo-2",
    "schermo-3",
    "schermo-4",
    "schermo-5",
    "schermo-6",
    "schermo-7",
    "schermo-8",
    "schermo-9",
    "schermo-10",
    "schermo-11",
    "schermo-12",
];

pub const REINFORCEMENT_FLAGS: [&str; 11] = [
    "rinforzo-2",
    "rinforzo-3",
    "rinforzo-4",
    "rinforzo-5",
    "rinforzo-6",
    "rinforzo-7",
    "rinforzo-8",
    "rinforzo-9",
    "rinforzo-10",
    "rinforzo-11",
    "rinforzo-12",
];

pub(super) fn numbered(flags: &[String], prefix: &str) -> Option<u32> {
    flags
        .iter()
        .find_map(|f| f.strip_prefix(prefix).and_then(|n| n.parse().ok()))
}

pub fn unit_of(s: &Scenario, i: usize) -> Result<UnitState, String> {
    let u = &s.units[i];
    let troop = Troop::from_id(&u.troop).ok_or_else(|| format!("units[{i}].type: {}", u.troop))?;
    let has = |f: &str| u.flags.iter().any(|x| x == f);
    let quality = if has("veterani") {
        Quality::Veterani
    } else if has("reclute") || troop == Troop::ContadiniArmati {
        Quality::Reclute
    } else {
        Quality::Addestrati
    };
    let tercio = has("tercio") || has("colunella");
    let n = numbered(&u.flags, "schermo-").unwrap_or(0);
    let (screen, shot) = if tercio { (0, n) } else { (n, 0) };
    let special = if has("doppelsoldner") {
        Some(Troop::Doppelsoldner)
    } else if has("rodeleros") {
        Some(Troop::Rodeleros)
    } else {
        None
    };
    let halberd = troop == Troop::Picchieri && has("alabardieri");
    let special = if troop == Troop::Picchieri {
        special
    } else {
        None
    };
    let bases =
        u32::from(u.bases) + screen + shot + u32::from(special.is_some()) + u32::from(halberd);
    let weapon = match troop {
        Troop::Archibugieri => Some(Weapon::Archibugio),
        Troop::Balestrieri | Troop::Arcieri => Some(Weapon::Balestra),
        Troop::ArtiglieriaLeggera => Some(Weapon::CannoneLeggero),
        Troop::ArtiglieriaPesante => Some(Weapon::CannonePesante),
        Troop::CavalleriaLeggera if has("giavellotti") => Some(Weapon::Giavellotti),
        Troop::CavalleriaLeggera if has("balestre") || has("archibugi") => {
            Some(Weapon::CavalloArmiDaTiro)
        }
        Troop::Picchieri if shot > 0 => Some(Weapon::Archibugio),
        _ => None,
    };
    let enters = numbered(&u.flags, "rinforzo-").unwrap_or(1);
    Ok(UnitState {
        id: u.id.clone(),
        name: u.name.message().into_owned(),
        side: s.sides.iter().position(|x| x.id == u.side).unwrap_or(0),
        troop,
        nationality: u.nationality.clone(),
        quality,
        bases_start: bases,
        bases,
        screen,
        special,
        halberd,
        shot,
        tercio,
        hits: 0,
        riccio: false,
        open_order: has("ordine-aperto"),
        disordered: false,
        status: if enters > 1 {
            Status::Waiting
        } else {
            Status::Ok
        },
        fixated: false,
        charges: 0,
        weapon,
        enters,
        reserve: has("riserva"),
        pursuit_turns: 0,
        counted: false,
        fired: false,
        held_fire: false,
        moved: false,
        charge_moved: false,
        activated: false,
        fought_with: Vec::new(),
        panic_passed: false,
        fired_turn: None,
        exploded: false,
        volley_hits: 0,
        lose_first: None,
        orders_failed: false,
        attacked: false,
        lost_to_fire: false,
        crossing: None,
    })
}

pub fn initial(s: &Scenario) -> Result<State, String> {
    let cfg = cfg_of(s);
    let units = (0..s.units.len())
        .map(|i| unit_of(s, i))
        .collect::<Result<Vec<_>, _>>()?;
    let commanders = s
        .leaders
        .iter()
        .map(|l| CommanderState {
            id: l.id.clone(),
            name: l.name.message().into_owned(),
            side: s.sides.iter().position(|x| x.id == l.side).unwrap_or(0),
            army: l.rank == Rank::Army,
            unit: s
                .units
                .iter()
                .find(|u| u.leader == l.id && u.flags.iter().any(|f| f == "comandante"))
                .map(|u| u.id.clone()),
            status: CommanderStatus::Active,
            moved: false,
        })
        .collect();
    let camp = |i: usize| {
        let key = if i == 0 {
            "callan.camp_first"
        } else {
            "callan.camp_second"
        };
        u32::try_from(house(s, key)).unwrap_or_default()
    };
    let works = |i: usize, kind: &str| {
        let side = if i == 0 { "first" } else { "second" };
        u32::try_from(house(s, &format!("callan.works_{side}_{kind}"))).unwrap_or_default()
    };
    let sides = s
        .sides
        .iter()
        .enumerate()
        .map(|(i, x)| SideState {
            id: x.id.clone(),
            name: x.name.message().into_owned(),
            camp: x.camp,
            camp_value: camp(i),
            camp_looted: false,
            strength: 0,
            points: 0,
            lost: 0,
            lost_points: 0,
            works_difficult: works(i, "difficult"),
            works_very: works(i, "very"),
        })
        .collect::<Vec<_>>();
    // Field works have their difficulty from the start: they were bought as such (D58, D75).
    let mut obstacles: BTreeMap<String, String> = sides
        .iter()
        .flat_map(works_obstacles)
        .map(|(id, d)| (id, d.to_string()))
        .collect();
    // The scenario's obstacles: by name where the table says which one a unit crosses, their
    // difficulty known from the start when it was agreed (003, Preparazione del gioco).
    let mut obstacle_names = BTreeMap::new();
    for o in &s.obstacles {
        if let Some(d) = &o.difficulty {
            obstacles.insert(o.id.clone(), d.clone());
        }
        obstacle_names.insert(o.id.clone(), o.name.message().into_owned());
    }
    let mut st = State {
        turn: 0,
        phase: Phase::Setup,
        cfg,
        deck: Vec::new(),
        drawn: Vec::new(),
        joker: false,
        fog_roll: None,
        salt: 0,
        open: None,
        sides,
        units,
        commanders,
        combats: Vec::new(),
        next_combat: 1,
        obstacles,
        obstacle_names,
        winner: None,
        draw: false,
        chronicle: Vec::new(),
        question: None,
    };
    tally_strength(&mut st);
    Ok(st)
}

/// Each army's weighted strength and points, from the units in the army (D61, D62).
pub fn tally_strength(st: &mut State) {
    for i in 0..st.sides.len() {
        let mut halves = 0;
        let mut points = 0;
        for u in st
            .units
            .iter()
            .filter(|u| u.side == i && u.status != Status::Withdrawn)
        {
            halves += if st.cfg.victory_weighted {
                u.bases_start * u.weight()
            } else {
                u.bases_start * 2
            };
            points += if u.troop.is_gun() {
                u.base_points(&st.cfg)
            } else {
                u.bases_start * u.base_points(&st.cfg)
            };
        }
        // Field works: 1 point a BW of a difficult obstacle, 2 of a very difficult one (D75).
        let s = &st.sides[i];
        points += s.works_difficult * WORKS_POINTS[0] + s.works_very * WORKS_POINTS[1];
        let cmd = st.commanders.iter().filter(|c| c.side == i).count() as u32;
        if st.cfg.victory_weighted {
            halves += cmd * COMMANDER_LOSS_HALVES;
        }
        points += cmd * COMMANDER_POINTS;
        st.sides[i].strength = halves;
        st.sides[i].points = points;
    }
}
