//! The `[table]` of a scenario file: billing (on-demand or provisioned, each refusing the other's fields),
//! partitions, limits, auto scaling, the split and idle times, and the storage (size and growth, R8).

use toml::Spanned;

use super::{Ctx, ScenarioError, TableDoc, line_of};
use crate::model::simulate::{
    AutoScaling, Billing, Limits, MAX_RUN_PARTITIONS, PARTITION_GB, Table,
};

/// The table a `[table]` section describes.
pub(super) fn table_of(c: &Ctx<'_>, t: &TableDoc) -> Result<Table, ScenarioError> {
    let on_demand = match &t.billing {
        Some(b) => c.word("billing", b, &["provisioned", "on-demand"])? == "on-demand",
        None => true,
    };
    let billing = if on_demand {
        on_demand_billing(c, t)?
    } else {
        provisioned_billing(c, t)?
    };
    let limits = match &t.limits {
        Some(l) => match c.word("limits", l, &["independent", "combined"])? {
            "combined" => Limits::Combined,
            _ => Limits::Independent,
        },
        None => Limits::Independent,
    };
    let (size_gb, growth_gb_per_day) = storage_of(c, t)?;
    let partitions = match &t.partitions {
        Some(p) if *p.get_ref() == 0 => return c.err(p.span(), "partitions must be at least 1"),
        Some(p) => Some(*p.get_ref() as usize),
        None => None,
    };
    let needed = (size_gb / PARTITION_GB).ceil();
    if let Some(p) = &t.partitions
        && f64::from(*p.get_ref()) < needed
    {
        return c.err(
            p.span(),
            format!(
                "partitions = {} cannot hold size_gb = {size_gb}: a partition holds about {PARTITION_GB} GB, so \
                 at least {needed}",
                p.get_ref()
            ),
        );
    }
    let autoscaling = autoscaling_of(c, t, &billing)?;
    let base = Table::default();
    Ok(Table {
        billing,
        partitions,
        lsi: t.lsi.unwrap_or(false),
        adaptive_capacity: t.adaptive_capacity.unwrap_or(true),
        split_for_heat: t.split_for_heat.unwrap_or(true),
        split_after: t
            .split_after
            .as_ref()
            .map_or(Ok(base.split_after), |d| c.duration("split_after", d))?,
        idle_before: t
            .idle_before
            .as_ref()
            .map_or(Ok(base.idle_before), |d| c.duration("idle_before", d))?,
        limits,
        autoscaling,
        size_gb,
        growth_gb_per_day,
    })
}

/// The table's storage (R8): its size at the start and its growth a day, GB, each a number ≥ 0 (default 0);
/// the size within the partitions a run keeps.
fn storage_of(c: &Ctx<'_>, t: &TableDoc) -> Result<(f64, f64), ScenarioError> {
    let size_gb = match &t.size_gb {
        Some(v) => {
            let x = c.non_negative("size_gb", v)?;
            let most = MAX_RUN_PARTITIONS as f64 * PARTITION_GB;
            if x > most {
                return c.err(
                    v.span(),
                    format!(
                        "size_gb = {x} is more than the model handles: {MAX_RUN_PARTITIONS} partitions of \
                         {PARTITION_GB} GB, {most} GB"
                    ),
                );
            }
            x
        }
        None => 0.0,
    };
    let growth = t
        .growth_gb_per_day
        .as_ref()
        .map_or(Ok(0.0), |v| c.non_negative("growth_gb_per_day", v))?;
    Ok((size_gb, growth))
}

/// An on-demand table's billing: its previous peak, quota and maximum (no rcu, wcu or autoscaling).
fn on_demand_billing(c: &Ctx<'_>, t: &TableDoc) -> Result<Billing, ScenarioError> {
    for (field, v) in [("rcu", &t.rcu), ("wcu", &t.wcu)] {
        if let Some(v) = v {
            return c.err(
                v.span(),
                format!("{field} is for provisioned tables; this one is on-demand"),
            );
        }
    }
    if let Some(a) = &t.autoscaling {
        return c.err(
            a.span(),
            "autoscaling is for provisioned tables; this one is on-demand",
        );
    }
    let get = |v: &Option<Spanned<f64>>, field: &str, default: f64| -> Result<f64, ScenarioError> {
        v.as_ref().map_or(Ok(default), |v| c.non_negative(field, v))
    };
    // One of two names for one value: the file's own or DynamoDB's.
    let either = |(a, a_name): (&Option<Spanned<f64>>, &str),
                  (b, b_name): (&Option<Spanned<f64>>, &str)|
     -> Result<Option<(f64, bool)>, ScenarioError> {
        match (a, b) {
            (Some(_), Some(v)) => c.err(
                v.span(),
                format!("{a_name} and {b_name} say the same thing: give one of them"),
            ),
            (Some(v), None) => Ok(Some((c.non_negative(a_name, v)?, true))),
            (None, Some(v)) => Ok(Some((c.non_negative(b_name, v)?, false))),
            (None, None) => Ok(None),
        }
    };
    let max = [
        either(
            (&t.max_reads, "max_reads"),
            (&t.max_read_units, "max_read_units"),
        )?,
        either(
            (&t.max_writes, "max_writes"),
            (&t.max_write_units, "max_write_units"),
        )?,
    ]
    .map(|m| m.map_or(0.0, |(x, _)| x));
    // Warm throughput is what the table serves at once, which R5 makes twice the previous peak: a warm
    // throughput W stands for a previous peak of W / 2 ([ours]: DynamoDB does not say how the two meet; the
    // model's partitions at the start follow, ⌈W / 3,000⌉ for reads, ⌈W / 1,000⌉ for writes).
    let peak = |(previous, p_name), (warm, w_name), default| {
        either((previous, p_name), (warm, w_name))
            .map(|v| v.map_or(default, |(x, is_peak)| if is_peak { x } else { x / 2.0 }))
    };
    Ok(Billing::OnDemand {
        previous_peak: [
            peak(
                (&t.previous_peak_reads, "previous_peak_reads"),
                (&t.warm_read_units, "warm_read_units"),
                6_000.0,
            )?,
            peak(
                (&t.previous_peak_writes, "previous_peak_writes"),
                (&t.warm_write_units, "warm_write_units"),
                2_000.0,
            )?,
        ],
        quota: [
            get(&t.quota_reads, "quota_reads", 40_000.0)?,
            get(&t.quota_writes, "quota_writes", 40_000.0)?,
        ],
        max,
    })
}

/// A provisioned table's billing: its rcu and wcu (no on-demand fields), at least one above 0.
fn provisioned_billing(c: &Ctx<'_>, t: &TableDoc) -> Result<Billing, ScenarioError> {
    for (field, v) in [
        ("previous_peak_reads", &t.previous_peak_reads),
        ("previous_peak_writes", &t.previous_peak_writes),
        ("quota_reads", &t.quota_reads),
        ("quota_writes", &t.quota_writes),
        ("max_reads", &t.max_reads),
        ("max_writes", &t.max_writes),
        ("max_read_units", &t.max_read_units),
        ("max_write_units", &t.max_write_units),
        ("warm_read_units", &t.warm_read_units),
        ("warm_write_units", &t.warm_write_units),
    ] {
        if let Some(v) = v {
            return c.err(
                v.span(),
                format!("{field} is for on-demand tables; this one is provisioned"),
            );
        }
    }
    let rcu = t
        .rcu
        .as_ref()
        .map_or(Ok(0.0), |v| c.non_negative("rcu", v))?;
    let wcu = t
        .wcu
        .as_ref()
        .map_or(Ok(0.0), |v| c.non_negative("wcu", v))?;
    if rcu + wcu <= 0.0 {
        let line = t
            .billing
            .as_ref()
            .map_or(1, |b| line_of(c.text, b.span().start));
        return Err(ScenarioError {
            line,
            message: "a provisioned table needs rcu or wcu above 0".to_owned(),
        });
    }
    Ok(Billing::Provisioned { units: [rcu, wcu] })
}

/// Auto scaling of a provisioned table, when the file sets it.
fn autoscaling_of(
    c: &Ctx<'_>,
    t: &TableDoc,
    billing: &Billing,
) -> Result<Option<AutoScaling>, ScenarioError> {
    Ok(match &t.autoscaling {
        Some(a) => {
            let d = a.get_ref();
            let target = d.target.unwrap_or(0.7);
            if !(0.2..=0.9).contains(&target) {
                return c.err(
                    a.span(),
                    format!("autoscaling target {target}: AWS allows 0.2 to 0.9"),
                );
            }
            let Billing::Provisioned { units } = billing else {
                return c.err(a.span(), "autoscaling is for provisioned tables");
            };
            Some(AutoScaling {
                target,
                min: [
                    d.min_rcu.unwrap_or(units[0].min(1.0)),
                    d.min_wcu.unwrap_or(units[1].min(1.0)),
                ],
                max: [
                    d.max_rcu.unwrap_or(units[0].max(40_000.0)),
                    d.max_wcu.unwrap_or(units[1].max(40_000.0)),
                ],
            })
        }
        None => None,
    })
}
