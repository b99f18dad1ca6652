//! The decision tree drawn as a tree, the path from the current data highlighted, each answer with its
//! evidence, unknown answers settable by clicking, and the reached leaf's one-click fix.

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, pos2, vec2};

use super::{Command, theme};
use crate::model::decision::{Action, Answer, Leaf, Node, Path, Question, TREE, UserAnswers};

/// Where each node sits, as fractions of the drawing area: level and horizontal slot.
fn position(node: Node) -> (f32, f32) {
    match node {
        Node::Ask(Question::OneKey) => (0.0, 0.5),
        Node::Ask(Question::OneItem) => (1.0, 0.25),
        Node::Ask(Question::LowCardinality) => (1.0, 0.75),
        Node::Leaf(Leaf::ShardOrCache) => (2.0, 0.125),
        Node::Leaf(Leaf::ItemCollection) => (2.0, 0.375),
        Node::Leaf(Leaf::WriteShardPrefix) => (2.0, 0.625),
        Node::Leaf(Leaf::AdaptiveCapacity) => (2.0, 0.875),
    }
}

fn node_text(node: Node) -> &'static str {
    match node {
        Node::Ask(Question::OneKey) => "Throttling on one key?",
        Node::Ask(Question::OneItem) => "One item hot?",
        Node::Ask(Question::LowCardinality) => "Low-cardinality key?",
        Node::Leaf(l) => l.title(),
    }
}

fn on_path(path: &Path, node: Node) -> bool {
    match node {
        Node::Ask(q) => path.visits(q),
        Node::Leaf(l) => path.leaf == Some(l),
    }
}

/// Draws the tree; returns a command when the user clicks an answer or the fix.
pub fn decision_ui(ui: &mut egui::Ui, path: &Path, answers: &UserAnswers) -> Option<Command> {
    let mut command = None;
    ui.heading("Decision tree");
    let width = ui.available_width().max(240.0);
    let height = 230.0;
    let (rect, _) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    let box_size = vec2(width / 4.0 - 8.0, 60.0);
    let center = |node: Node| -> Pos2 {
        let (level, slot) = position(node);
        pos2(
            rect.left() + slot * width,
            rect.top() + box_size.y / 2.0 + 4.0 + level * (height - box_size.y - 8.0) / 2.0,
        )
    };
    // Edges first, nodes over them.
    for b in TREE {
        let from = center(Node::Ask(b.question));
        let answer = path.answer(b.question);
        for (child, label, taken) in [
            (b.yes, "yes", answer == Some(Answer::Yes)),
            (b.no, "no", answer == Some(Answer::No)),
        ] {
            let to = center(child);
            let start = from + vec2(0.0, box_size.y / 2.0);
            let end = to - vec2(0.0, box_size.y / 2.0);
            let stroke = if taken {
                Stroke::new(3.0, theme::PATH)
            } else {
                Stroke::new(1.0, visuals.weak_text_color())
            };
            painter.line_segment([start, end], stroke);
            painter.text(
                start.lerp(end, 0.45) + vec2(if label == "yes" { -14.0 } else { 14.0 }, 0.0),
                Align2::CENTER_CENTER,
                label,
                FontId::proportional(12.0),
                if taken {
                    theme::PATH
                } else {
                    visuals.weak_text_color()
                },
            );
        }
    }
    let mut nodes: Vec<Node> = TREE.iter().map(|b| Node::Ask(b.question)).collect();
    nodes.extend(Leaf::ALL.map(Node::Leaf));
    for node in nodes {
        let c = center(node);
        let r = Rect::from_center_size(c, box_size);
        let unknown = matches!(node, Node::Ask(q) if path.answer(q) == Some(Answer::Unknown));
        let (fill, stroke, text_color) = if unknown {
            (
                visuals.extreme_bg_color,
                Stroke::new(2.5, theme::UNKNOWN),
                visuals.strong_text_color(),
            )
        } else if on_path(path, node) {
            let fill = if matches!(node, Node::Leaf(_)) {
                theme::PATH
            } else {
                visuals.extreme_bg_color
            };
            let text = if matches!(node, Node::Leaf(_)) {
                Color32::WHITE
            } else {
                visuals.strong_text_color()
            };
            (fill, Stroke::new(2.5, theme::PATH), text)
        } else {
            (
                visuals.faint_bg_color,
                Stroke::new(1.0, visuals.weak_text_color()),
                visuals.weak_text_color(),
            )
        };
        painter.rect(r, 6.0, fill, stroke, egui::StrokeKind::Inside);
        let galley = painter.layout(
            node_text(node).to_owned(),
            FontId::proportional(12.5),
            text_color,
            box_size.x - 8.0,
        );
        let pos = c - galley.size() / 2.0;
        painter.galley(pos, galley, text_color);
    }

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
            ui.label(egui::RichText::new(&step.evidence).small());
            ui.horizontal(|ui| {
                let (yes, no) = answer_labels(step.id);
                let current = answers.get(step.id);
                if ui.selectable_label(current == Some(true), yes).clicked() {
                    command = Some(Command::Answer(step.id, Some(true)));
                }
                if ui.selectable_label(current == Some(false), no).clicked() {
                    command = Some(Command::Answer(step.id, Some(false)));
                }
                if current.is_some() && ui.button("Use the data").clicked() {
                    command = Some(Command::Answer(step.id, None));
                }
            });
        });
    }
    ui.add_space(4.0);
    match path.leaf {
        Some(leaf) => {
            ui.label(
                egui::RichText::new(format!("Recommendation: {}", leaf.title()))
                    .strong()
                    .color(theme::PATH),
            );
        }
        None if path.path.is_empty() => {}
        None => {
            ui.label(
                egui::RichText::new("Recommendation: answer the open question")
                    .strong()
                    .color(theme::UNKNOWN),
            );
        }
    }
    ui.label(&path.recommendation);
    if let Some(action) = path.leaf.and_then(Leaf::action) {
        let text = match action {
            Action::ShardHotKeys => "Turn on sharding for the hot key",
            Action::ShardAllKeys => "Turn on sharding for every key",
        };
        if ui.button(text).clicked() {
            command = Some(Command::Apply(action));
        }
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
