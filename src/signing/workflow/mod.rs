//! Sending and signing: whose turn it is, what a recipient may do with their
//! link, and the transitions of a document from DRAFT to COMPLETED, REJECTED or CANCELLED. Each
//! transition is one transaction that checks its precondition in SQL (`flow.rs`); the rules
//! themselves are plain functions here and in `values.rs`.

pub mod answers;
pub mod auth;
pub mod deadlines;
pub mod direct;
pub mod direct_expiry;
pub mod emailed_code;
pub mod flow;
pub mod invites;
pub mod link;
pub mod link_answers;
pub mod login_hint;
pub mod seal_check;
pub mod sealing;
pub mod sending;
pub mod signed_copy;

#[cfg(test)]
pub(crate) mod flow_tests;

use crate::core::ids::RecipientId;
use crate::signing::documents::fields::FieldType;
use crate::signing::documents::meta::SigningOrder;
use crate::{
    signing::documents::model::Document, signing::documents::model::Field,
    signing::documents::model::Recipient,
};
use crate::{signing::documents::recipients::Role, signing::documents::recipients::SigningStatus};

/// A recipient as the turn rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Party {
    pub id: RecipientId,
    pub role: Role,
    pub signing_order: Option<i64>,
    pub signing_status: SigningStatus,
    /// Came through a template's direct link: while they have not finished, nobody else acts.
    pub leads: bool,
}

impl Party {
    /// CC recipients never act; they get the sealed copy.
    pub fn acts(&self) -> bool {
        self.role != Role::Cc
    }

    pub fn finished(&self) -> bool {
        self.signing_status == SigningStatus::Signed
    }
}

/// `recipients` as the turn rules see them.
pub fn parties(recipients: &[Recipient]) -> Vec<Party> {
    recipients
        .iter()
        .map(|r| Party {
            id: r.id,
            role: r.role,
            signing_order: r.signing_order,
            signing_status: r.signing_status,
            leads: r.direct_link,
        })
        .collect()
}

/// The recipients who may act now: a recipient who came through a direct link (`leads`)
/// alone until they finish; then in PARALLEL every acting recipient not yet finished, in
/// SEQUENTIAL the first of them by `signingOrder` (unset last), then id. Nobody once someone
/// rejected.
pub fn current_turn(order: SigningOrder, parties: &[Party]) -> Vec<RecipientId> {
    if parties
        .iter()
        .any(|p| p.signing_status == SigningStatus::Rejected)
    {
        return Vec::new();
    }
    let mut waiting: Vec<&Party> = parties
        .iter()
        .filter(|p| p.acts() && !p.finished())
        .collect();
    if let Some(first) = waiting.iter().find(|p| p.leads) {
        return vec![first.id];
    }
    match order {
        SigningOrder::Parallel => waiting.iter().map(|p| p.id).collect(),
        SigningOrder::Sequential => {
            waiting.sort_by_key(|p| (p.signing_order.unwrap_or(i64::MAX), p.id));
            waiting.first().map(|p| vec![p.id]).unwrap_or_default()
        }
    }
}

/// Where a recipient stands in a SEQUENTIAL order: by `signingOrder` (unset last), then id.
fn place(r: &Recipient) -> (i64, RecipientId) {
    (r.signing_order.unwrap_or(i64::MAX), r.id)
}

/// The fields an ASSISTANT (`me`) may fill in for others: in a SEQUENTIAL document, those of
/// the recipients after them who have not finished. Never a signature, initials or a date:
/// those are the recipient's own marks, and a date is filled when its recipient finishes. In
/// a PARALLEL document nobody comes after anyone: none.
pub fn assistable<'a>(doc: &'a Document, me: &Recipient) -> Vec<&'a Field> {
    if me.role != Role::Assistant || doc.meta.signing_order != SigningOrder::Sequential {
        return Vec::new();
    }
    let later: Vec<RecipientId> = doc
        .recipients
        .iter()
        .filter(|r| {
            r.id != me.id
                && place(r) > place(me)
                && r.role != Role::Cc
                && r.signing_status == SigningStatus::NotSigned
        })
        .map(|r| r.id)
        .collect();
    later
        .iter()
        .flat_map(|id| doc.fields_of(*id))
        .filter(|f| {
            !matches!(
                f.kind,
                FieldType::Signature
                    | FieldType::FreeSignature
                    | FieldType::Initials
                    | FieldType::Date
            )
        })
        .collect()
}

/// True when every recipient who acts has finished (and there is at least one).
pub fn all_finished(parties: &[Party]) -> bool {
    parties.iter().any(Party::acts) && parties.iter().filter(|p| p.acts()).all(Party::finished)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: i64, role: &str, order: Option<i64>, status: &str) -> Party {
        Party {
            id: RecipientId::new(id),
            role: Role::parse(role).unwrap(),
            signing_order: order,
            signing_status: SigningStatus::parse(status).unwrap(),
            leads: false,
        }
    }

    #[test]
    fn sequential_goes_by_order_then_id_and_skips_cc() {
        let ps = vec![
            p(1, "SIGNER", Some(2), "NOT_SIGNED"),
            p(2, "CC", Some(0), "NOT_SIGNED"),
            p(3, "APPROVER", Some(1), "NOT_SIGNED"),
            p(4, "SIGNER", None, "NOT_SIGNED"),
            p(5, "VIEWER", Some(1), "NOT_SIGNED"),
        ];
        assert_eq!(
            current_turn(SigningOrder::Sequential, &ps),
            [RecipientId::new(3)]
        );
        let mut next = ps.clone();
        next[2].signing_status = SigningStatus::Signed;
        assert_eq!(
            current_turn(SigningOrder::Sequential, &next),
            [RecipientId::new(5)]
        );
        next[4].signing_status = SigningStatus::Signed;
        next[0].signing_status = SigningStatus::Signed;
        assert_eq!(
            current_turn(SigningOrder::Sequential, &next),
            [RecipientId::new(4)]
        );
        assert!(!all_finished(&next));
        next[3].signing_status = SigningStatus::Signed;
        assert!(all_finished(&next));
        assert!(current_turn(SigningOrder::Sequential, &next).is_empty());
    }

    #[test]
    fn parallel_lets_everyone_act_until_a_rejection() {
        let mut ps = vec![
            p(1, "SIGNER", None, "NOT_SIGNED"),
            p(2, "CC", None, "NOT_SIGNED"),
            p(3, "VIEWER", None, "SIGNED"),
        ];
        assert_eq!(
            current_turn(SigningOrder::Parallel, &ps),
            [RecipientId::new(1)]
        );
        ps[0].signing_status = SigningStatus::Rejected;
        assert!(current_turn(SigningOrder::Parallel, &ps).is_empty());
        assert!(!all_finished(&ps));
        assert!(!all_finished(&[p(1, "CC", None, "NOT_SIGNED")]));
    }

    #[test]
    fn a_visitor_of_a_direct_link_acts_alone_then_the_order_resumes() {
        let mut ps = vec![
            p(1, "SIGNER", Some(1), "NOT_SIGNED"),
            p(2, "SIGNER", Some(2), "NOT_SIGNED"),
            p(3, "APPROVER", Some(3), "NOT_SIGNED"),
        ];
        ps[1].leads = true;
        for order in [SigningOrder::Parallel, SigningOrder::Sequential] {
            assert_eq!(current_turn(order, &ps), [RecipientId::new(2)]);
        }
        ps[1].signing_status = SigningStatus::Signed;
        assert_eq!(
            current_turn(SigningOrder::Parallel, &ps),
            [RecipientId::new(1), RecipientId::new(3)]
        );
        assert_eq!(
            current_turn(SigningOrder::Sequential, &ps),
            [RecipientId::new(1)]
        );
        ps[0].signing_status = SigningStatus::Rejected;
        assert!(current_turn(SigningOrder::Parallel, &ps).is_empty());
    }
}
