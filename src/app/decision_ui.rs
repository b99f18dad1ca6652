//! The decision tree drawn as a tree, the path from the current data highlighted, each answer with its
//! evidence, unknown answers settable by clicking, and the reached leaf's one-click fix. Box sizes follow the
//! text style, so the tree stays inside its boxes at every text size (presentation mode included).

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, pos2, vec2};

use super::{Command, theme};
use crate::model::decision::{
    Action, Answer, Leaf, Node, Path, Question, TABLE_LEVEL, TREE, UserAnswers,
};

/// Where each node sits: level and horizontal slot (a fraction of the width).
fn position(node: Node) -> (f32, f32) {
    match node {
        Node::Ask(Question::OneKey) => (0.0, 0.45),
        Node::Ask(Question::OneItem) => (1.0, 0.22),
        Node::Ask(Question::LowCardinality) => (1.0, 0.62),
        Node::Leaf(Leaf::TableLimit) => (1.0, 0.9),
        Node::Leaf(Leaf::ShardOrCache) => (2.0, 0.11),
        Node::Leaf(Leaf::ItemCollection) => (2.0, 0.34),
        Node::Leaf(Leaf::WriteShardPrefix) => (2.0, 0.6),
        Node::Leaf(Leaf::AdaptiveCapacity) => (2.0, 0.86),
    }
}

fn node_text(node: Node) -> &'static str {
    match node {
        Node::Ask(Question::OneKey) => "Throttling on one key?",
        Node::Ask(Question::OneItem) => "One item hot?",
        Node::Ask(Question::LowCardinality) => "Low-cardinality key?",
        Node::Leaf(Leaf::TableLimit) => "Table-level limit",
        Node::Leaf(l) => l.title(),
    }
}

fn on_path(path: &Path, node: Node) -> bool {
    match node {
        Node::Ask(q) => path.visits(q),
        Node::Leaf(l) => path.leaf == Some(l),
    }
}

/// Every node of the drawing.
fn nodes() -> Vec<Node> {
    let mut nodes: Vec<Node> = TREE.iter().map(|b| Node::Ask(b.question)).collect();
    nodes.extend(Leaf::ALL.map(Node::Leaf));
    nodes
}

/// Every edge of the drawing: from, to, label, and whether the path takes it.
fn edges(path: &Path) -> Vec<(Node, Node, &'static str, bool)> {
    let mut out = Vec::new();
    for b in TREE {
        let answer = path.answer(b.question);
        let to_table = b.question == TABLE_LEVEL.0 && path.leaf == Some(TABLE_LEVEL.1);
        out.push((
            Node::Ask(b.question),
            b.yes,
            "yes",
            answer == Some(Answer::Yes),
        ));
        out.push((
            Node::Ask(b.question),
            b.no,
            "no",
            answer == Some(Answer::No) && !to_table,
        ));
        if b.question == TABLE_LEVEL.0 {
            out.push((
                Node::Ask(b.question),
                Node::Leaf(TABLE_LEVEL.1),
                "no: table-level",
                to_table,
            ));
        }
    }
    out
}

/// Draws the picture of the tree.
fn tree_picture(ui: &mut egui::Ui, path: &Path) {
    let width = ui.available_width().max(240.0);
    let body = egui::TextStyle::Body.resolve(ui.style()).size;
    let (font, box_size) = box_layout(ui, width / 4.4 - 6.0, body);
    let gap = (box_size.y * 0.9).max(body * 2.2);
    let height = 3.0 * box_size.y + 2.0 * gap + 8.0;
    let (rect, _) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    let center = |node: Node| -> Pos2 {
        let (level, slot) = position(node);
        // Kept whole inside the panel: the right-most box (Table-level limit) was cut at its edge.
        let half = box_size.x / 2.0 + 1.0;
        pos2(
            (rect.left() + slot * width).clamp(rect.left() + half, rect.right() - half),
            rect.top() + 4.0 + box_size.y / 2.0 + level * (box_size.y + gap),
        )
    };
    let label_font = FontId::proportional(body * 0.85);
    for (from, to, label, taken) in edges(path) {
        let end = center(to) - vec2(0.0, box_size.y / 2.0);
        let start = if matches!(to, Node::Leaf(Leaf::TableLimit)) {
            // The table-level edge leaves the root's right side.
            center(from) + vec2(box_size.x / 2.0, box_size.y * 0.25)
        } else {
            center(from) + vec2(0.0, box_size.y / 2.0)
        };
        let color = if taken {
            theme::PATH
        } else {
            visuals.weak_text_color()
        };
        painter.line_segment(
            [start, end],
            Stroke::new(if taken { 3.0 } else { 1.0 }, color),
        );
        let side = if label == "yes" { -1.0 } else { 1.0 };
        let align = if side < 0.0 {
            Align2::RIGHT_CENTER
        } else {
            Align2::LEFT_CENTER
        };
        let at = start.lerp(end, 0.45) + vec2(side * body * 0.9, 0.0);
        painter.text(at, align, label, label_font.clone(), color);
    }
    for node in nodes() {
        let c = center(node);
        let (fill, stroke, text_color) = node_style(visuals, path, node);
        painter.rect(
            Rect::from_center_size(c, box_size),
            6.0,
            fill,
            stroke,
            egui::StrokeKind::Inside,
        );
        let galley = painter.layout(
            node_text(node).to_owned(),
            font.clone(),
            text_color,
            box_size.x - 8.0,
        );
        let pos = c - galley.size() / 2.0;
        painter.galley(pos, galley, text_color);
    }
}

/// The boxes' font and size: the font shrinks (down to 60 %) until the widest word of any box fits, so words
/// never break, and boxes are as tall as the tallest wrapped title, plus padding.
fn box_layout(ui: &egui::Ui, box_w: f32, body: f32) -> (FontId, egui::Vec2) {
    let widest_word = nodes()
        .into_iter()
        .flat_map(|n| node_text(n).split(' '))
        .map(|w| {
            ui.painter()
                .layout_no_wrap(w.to_owned(), FontId::proportional(body), Color32::WHITE)
                .size()
                .x
        })
        .fold(1.0f32, f32::max);
    let scale = ((box_w - 10.0) / widest_word).clamp(0.6, 0.92);
    let font = FontId::proportional(body * scale);
    let tallest = nodes()
        .into_iter()
        .map(|n| {
            ui.painter()
                .layout(
                    node_text(n).to_owned(),
                    font.clone(),
                    Color32::WHITE,
                    box_w - 8.0,
                )
                .size()
                .y
        })
        .fold(0.0f32, f32::max);
    (font, vec2(box_w, tallest + 12.0))
}

/// A box's fill, outline and text colour: amber for a question the data could not answer, the path's
/// colour on the path (the leaf filled, amber with a caveat), faint elsewhere.
fn node_style(visuals: &egui::Visuals, path: &Path, node: Node) -> (Color32, Stroke, Color32) {
    let unknown = matches!(node, Node::Ask(q) if path.answer(q) == Some(Answer::Unknown));
    if unknown {
        return (
            visuals.extreme_bg_color,
            Stroke::new(2.5, theme::UNKNOWN),
            visuals.strong_text_color(),
        );
    }
    if !on_path(path, node) {
        return (
            visuals.faint_bg_color,
            Stroke::new(1.0, visuals.weak_text_color()),
            visuals.weak_text_color(),
        );
    }
    let leaf = matches!(node, Node::Leaf(_));
    let fill = if leaf && path.caveat.is_some() {
        theme::UNKNOWN
    } else if leaf {
        theme::PATH
    } else {
        visuals.extreme_bg_color
    };
    let text = if leaf {
        Color32::WHITE
    } else {
        visuals.strong_text_color()
    };
    (fill, Stroke::new(2.5, theme::PATH), text)
}

/// The label of the one-click fix.
pub fn action_label(action: Action) -> &'static str {
    match action {
        Action::ShardHotKeys => "Turn on sharding for the hot key",
        Action::ShardAllKeys => "Turn on sharding for every key",
        Action::MoreShards => "Double the shards",
    }
}

/// The caveat's first words ("Too few items to judge"), before its figures.
fn caveat_title(caveat: &str) -> &str {
    caveat.split(':').next().unwrap_or(caveat)
}

/// The reached leaf (or the open question, or the caveat) and the fix, as a line of headline text.
fn recommendation_ui(ui: &mut egui::Ui, path: &Path) -> Option<Command> {
    let mut command = None;
    match (path.leaf, &path.caveat) {
        (_, Some(caveat)) => {
            ui.label(
                egui::RichText::new(caveat_title(caveat))
                    .strong()
                    .color(theme::UNKNOWN),
            );
        }
        (Some(leaf), None) => {
            ui.label(
                egui::RichText::new(format!("Recommendation: {}", leaf.title()))
                    .strong()
                    .color(theme::PATH),
            );
        }
        (None, _) if path.path.is_empty() => {}
        (None, _) => {
            ui.label(
                egui::RichText::new("Recommendation: answer the open question")
                    .strong()
                    .color(theme::UNKNOWN),
            );
        }
    }
    ui.label(&path.recommendation);
    if let Some(action) = path.action
        && ui.button(action_label(action)).clicked()
    {
        command = Some(Command::Apply(action));
    }
    command
}

/// Draws the tree; returns a command when the user clicks an answer or the fix.
pub fn decision_ui(ui: &mut egui::Ui, path: &Path, answers: &UserAnswers) -> Option<Command> {
    let mut command = None;
    ui.heading("Decision tree");
    tree_picture(ui, path);
    ui.add_space(6.0);
    for step in &path.path {
        ui.group(|ui| {
            ui.horizontal_wrapped(|ui| {
                let color = match step.answer {
                    Answer::Yes | Answer::No => theme::PATH,
                    Answer::Unknown => theme::UNKNOWN,
                };
                ui.strong(step.question);
                ui.colored_label(color, step.answer.as_str());
                if step.supplied {
                    ui.weak("(your answer)");
                }
            });
            // The evidence at the body's size: it is what the answer rests on, read from a projector too.
            ui.label(&step.evidence);
            ui.horizontal_wrapped(|ui| {
                if let Some(c) = answer_buttons(ui, step.id, answers) {
                    command = Some(c);
                }
                if answers.get(step.id).is_some() && ui.button("Use the data").clicked() {
                    command = Some(Command::Answer(step.id, None));
                }
            });
        });
    }
    ui.add_space(4.0);
    if let Some(c) = recommendation_ui(ui, path) {
        command = Some(c);
    }
    command
}

/// The path as one strip of large text for presentation mode: each question with its answer, then the leaf
/// and its fix; an open question keeps its yes/no buttons.
pub fn path_strip_ui(ui: &mut egui::Ui, path: &Path, answers: &UserAnswers) -> Option<Command> {
    let mut command = None;
    ui.horizontal_wrapped(|ui| {
        for step in &path.path {
            let color = match step.answer {
                Answer::Yes | Answer::No => theme::PATH,
                Answer::Unknown => theme::UNKNOWN,
            };
            ui.label(egui::RichText::new(node_text(Node::Ask(step.id))).strong());
            ui.label(
                egui::RichText::new(step.answer.as_str())
                    .color(color)
                    .strong(),
            );
            if step.answer == Answer::Unknown
                && let Some(c) = answer_buttons(ui, step.id, answers)
            {
                command = Some(c);
            }
            ui.label("›");
        }
        match (path.leaf, &path.caveat) {
            (_, Some(caveat)) => {
                ui.label(
                    egui::RichText::new(caveat_title(caveat).to_lowercase())
                        .strong()
                        .color(theme::UNKNOWN),
                );
            }
            (Some(leaf), None) => {
                ui.label(
                    egui::RichText::new(leaf.title())
                        .strong()
                        .color(theme::PATH),
                );
            }
            (None, _) => {
                ui.label(egui::RichText::new("answer the open question").color(theme::UNKNOWN));
            }
        }
        if let Some(action) = path.action
            && ui.button(action_label(action)).clicked()
        {
            command = Some(Command::Apply(action));
        }
    });
    command
}

/// The yes and no buttons of a question, the user's answer selected.
fn answer_buttons(ui: &mut egui::Ui, q: Question, answers: &UserAnswers) -> Option<Command> {
    let (yes, no) = answer_labels(q);
    let current = answers.get(q);
    let mut command = None;
    if ui.selectable_label(current == Some(true), yes).clicked() {
        command = Some(Command::Answer(q, Some(true)));
    }
    if ui.selectable_label(current == Some(false), no).clicked() {
        command = Some(Command::Answer(q, Some(false)));
    }
    command
}

fn answer_labels(q: Question) -> (&'static str, &'static str) {
    match q {
        Question::OneKey => ("Yes, one key", "No, not one key"),
        Question::OneItem => ("Yes, one item", "No, many items"),
        Question::LowCardinality => ("Yes, few values", "No, many values"),
    }
}
