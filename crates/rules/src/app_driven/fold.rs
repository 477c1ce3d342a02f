//! The fold of effects into a game's state, and the state as plain text.

use super::game::break_points;
use super::model::*;
use super::tables::Charts;
use std::sync::Arc;

/// Fold one effect into the state.
pub fn apply_effect(st: &mut GameState, e: &Effect) {
    match e {
        Effect::Unit {
            unit,
            status,
            lost,
            destroyed,
            uncounted,
        } => {
            if let Some(u) = st.unit_mut(unit) {
                u.status = *status;
                u.lost = *lost;
                u.destroyed = *destroyed;
                u.uncounted = *uncounted;
                if *destroyed {
                    let partners: Vec<String> = u.in_combat_with.iter().cloned().collect();
                    u.in_combat_with.clear();
                    for p in partners {
                        if let Some(o) = st.unit_mut(&p) {
                            o.in_combat_with.remove(unit);
                        }
                    }
                    for l in st.leaders.values_mut() {
                        if l.attached_to.as_deref() == Some(unit.as_str()) {
                            Arc::make_mut(l).attached_to = None;
                        }
                    }
                }
            }
        }
        Effect::Acted { unit } => {
            if let Some(u) = st.unit_mut(unit) {
                u.acted = true;
            }
        }
        Effect::Formation { unit, march } => {
            // A unit that moves leaves its planted stakes behind.
            if let Some(u) = st.unit_mut(unit) {
                u.march = *march;
                u.stakes_planted = false;
            }
        }
        Effect::StakesPlanted { unit } => {
            if let Some(u) = st.unit_mut(unit) {
                u.stakes_planted = true;
                u.stakes_used = true;
            }
        }
        Effect::CombatJoined { a, b } => {
            if st.unit(a).is_some_and(|u| !u.destroyed) && st.unit(b).is_some_and(|u| !u.destroyed)
            {
                if let Some(u) = st.unit_mut(a) {
                    u.in_combat_with.insert(b.clone());
                }
                if let Some(u) = st.unit_mut(b) {
                    u.in_combat_with.insert(a.clone());
                }
            }
        }
        Effect::CombatLeft { a, b } => {
            if let Some(u) = st.unit_mut(a) {
                u.in_combat_with.remove(b);
            }
            if let Some(u) = st.unit_mut(b) {
                u.in_combat_with.remove(a);
            }
        }
        Effect::LeaderFate { leader, fate } => {
            if let Some(l) = st.leader_mut(leader) {
                l.fate = Some(*fate);
                l.attached_to = None;
            }
            if st.current.as_ref().is_some_and(|c| &c.leader == leader) {
                // The initiative dies with the leader who held it; the next one is rolled for.
                st.current = None;
                st.initiative_side = None;
            }
        }
        Effect::LeaderAttached { leader, unit } => {
            if let Some(l) = st.leader_mut(leader) {
                l.attached_to = unit.clone();
            }
        }
        Effect::LeaderCaughtUp { leader } => {
            let holding = st.current.as_ref().is_some_and(|c| &c.leader == leader);
            if let Some(l) = st.leader_mut(leader) {
                l.fought = true;
                if !holding && !l.had_initiative {
                    l.caught_up = true;
                }
            }
        }
        Effect::LeaderActed { leader } => {
            let holding = st.current.as_ref().is_some_and(|c| &c.leader == leader);
            if let Some(l) = st.leader_mut(leader) {
                if !holding && !l.had_initiative {
                    l.caught_up = true;
                }
            }
        }
        Effect::CommandAssigned { from, to } => {
            if let Some(l) = st.leader_mut(to) {
                l.inherited.push(from.clone());
            }
        }
        Effect::Initiative { side } => {
            st.initiative_side = Some(side.clone());
            st.last_initiative_side = Some(side.clone());
            st.current = None;
        }
        Effect::Command {
            leader,
            activations,
        } => {
            if let Some(l) = st.leader_mut(leader) {
                l.had_initiative = true;
            }
            st.current = Some(CurrentCommand {
                leader: leader.clone(),
                activations_left: *activations,
            });
        }
        Effect::ActivationUsed { .. } => {
            if let Some(c) = st.current.as_mut() {
                c.activations_left = c.activations_left.saturating_sub(1);
            }
        }
        Effect::Phase { phase } => {
            st.phase = *phase;
            st.current = None;
            st.initiative_side = None;
        }
        Effect::EndFireDone => st.end_fire_done = true,
        Effect::CampSacked { side } => {
            for s in st.sides.iter_mut() {
                if &s.id == side {
                    s.camp_sacked = true;
                }
            }
        }
        Effect::TurnEnded { broken } => {
            for s in st.sides.iter_mut() {
                s.broken = broken.contains(&s.id);
            }
            if broken.is_empty() {
                st.turn += 1;
                st.phase = Phase::Command;
                // Only those whose marks change are copied from the reading kept before.
                for u in st.units.values_mut().filter(|u| u.acted) {
                    Arc::make_mut(u).acted = false;
                }
                for l in st
                    .leaders
                    .values_mut()
                    .filter(|l| l.had_initiative || l.caught_up || l.fought)
                {
                    let l = Arc::make_mut(l);
                    l.had_initiative = false;
                    l.caught_up = false;
                    l.fought = false;
                }
                st.current = None;
                st.initiative_side = None;
                st.last_initiative_side = None;
                st.end_fire_done = false;
            } else {
                st.phase = Phase::Over;
                st.broken = broken.clone();
            }
        }
    }
}

/// A plain-text picture of the game for `tercio game show`.
pub fn render(ch: &Charts, st: &GameState) -> String {
    let mut s = String::new();
    let phase = match st.phase {
        Phase::Command => "initiatives and activations",
        Phase::EndOfTurn => "end of turn",
        Phase::Over => "game over",
    };
    s.push_str(&format!("Turn {} — {phase}\n", st.turn));
    if let Some(side) = &st.initiative_side {
        let name = st
            .sides
            .iter()
            .find(|x| &x.id == side)
            .map_or(side.as_str(), |x| x.name.as_str());
        match &st.current {
            Some(c) => s.push_str(&format!(
                "Initiative: {name}; {} has {} activation(s) left\n",
                st.leaders[c.leader.as_str()].name,
                c.activations_left
            )),
            None => s.push_str(&format!(
                "Initiative: {name}; choose a leader (\"command\")\n"
            )),
        }
    }
    if !st.broken.is_empty() {
        let names: Vec<&str> = st
            .sides
            .iter()
            .filter(|x| st.broken.contains(&x.id))
            .map(|x| x.name.as_str())
            .collect();
        s.push_str(&format!(
            "Broken: {}{}\n",
            names.join(" and "),
            if names.len() > 1 { " — a draw" } else { "" }
        ));
    }
    for side in &st.sides {
        let (lost, bp) = break_points(ch, st, &side.id);
        s.push_str(&format!(
            "\n{} ({}) — break points {lost} of {bp}{}{}\n",
            side.name,
            if side.attacker {
                "attacker"
            } else {
                "defender"
            },
            if side.camp {
                if side.camp_sacked {
                    ", camp sacked"
                } else {
                    ", camp"
                }
            } else {
                ""
            },
            if side.broken { " — BROKEN" } else { "" }
        ));
        for l in st.leaders.values().filter(|l| l.side == side.id) {
            let mut tags = vec![];
            if l.army {
                tags.push("army commander".to_string());
            }
            if l.bonus > 0 {
                tags.push(format!("+{}", l.bonus));
            }
            match l.fate {
                Some(Fate::Killed) => tags.push("KILLED".into()),
                Some(Fate::Captured) => tags.push("CAPTURED".into()),
                None => {}
            }
            if l.had_initiative {
                tags.push("had initiative".into());
            }
            if l.caught_up {
                tags.push("caught up in the struggle".into());
            }
            if let Some(u) = &l.attached_to {
                tags.push(format!(
                    "with {}",
                    st.unit(u).map_or(u.as_str(), |x| x.name.as_str())
                ));
            }
            s.push_str(&format!("  leader {:<24} {}\n", l.name, tags.join(", ")));
        }
        for u in st.units.values().filter(|u| u.side == side.id) {
            let t = ch.troop(&u.troop).map_or(u.troop.as_str(), |t| t.name);
            let mut tags = vec![u.cond().describe(u.bases)];
            if u.acted && !u.destroyed {
                tags.push("acted".into());
            }
            if u.march {
                tags.push("march formation".into());
            }
            if u.stakes_planted {
                tags.push("stakes".into());
            }
            if !u.in_combat_with.is_empty() {
                let names: Vec<&str> = u
                    .in_combat_with
                    .iter()
                    .map(|x| st.unit(x).map_or(x.as_str(), |y| y.name.as_str()))
                    .collect();
                tags.push(format!("in combat with {}", names.join(", ")));
            }
            s.push_str(&format!(
                "  {:<28} {:<24} {}b  {}\n",
                format!("{} [{}]", u.name, u.id),
                t,
                u.bases,
                tags.join("; ")
            ));
        }
    }
    s
}
