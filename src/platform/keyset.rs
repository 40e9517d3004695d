//! Keyset paging, newest first: one page of a query after a (time, id) cursor, and whether
//! more follow. Exact counts stay with each caller, which knows what "all" means for its list.
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Select, Value,
};

/// The rows ordered after (`at`, `id`) by `time` then `key`, both descending.
pub fn older_than<T, K, V, W>(time: T, key: K, at: V, id: W) -> Condition
where
    T: ColumnTrait,
    K: ColumnTrait,
    V: Into<Value> + Clone,
    W: Into<Value>,
{
    Condition::any()
        .add(time.lt(at.clone()))
        .add(Condition::all().add(time.eq(at)).add(key.lt(id)))
}

/// One page of rows and whether another follows it.
pub struct Keyset<M> {
    pub rows: Vec<M>,
    pub more: bool,
}

impl<M> Keyset<M> {
    /// The cursor for the next page, made from this page's last row; None on the last page.
    pub fn next<C>(&self, cursor: impl FnOnce(&M) -> C) -> Option<C> {
        self.more.then(|| self.rows.last().map(cursor)).flatten()
    }
}

/// At most `size` rows of `q` after the cursor (`at`, `id`) (None: from the newest), ordered
/// by `time` then `key`, both descending. One row more is read to learn whether more follow.
pub async fn newest_first<E, C, T, K, V, W>(
    db: &C,
    q: Select<E>,
    (time, key): (T, K),
    after: Option<(V, W)>,
    size: u64,
) -> Result<Keyset<E::Model>, DbErr>
where
    E: EntityTrait,
    C: ConnectionTrait,
    T: ColumnTrait,
    K: ColumnTrait,
    V: Into<Value> + Clone,
    W: Into<Value>,
{
    let q = match after {
        Some((at, id)) => q.filter(older_than(time, key, at, id)),
        None => q,
    };
    let mut rows = q
        .order_by_desc(time)
        .order_by_desc(key)
        .limit(size + 1)
        .all(db)
        .await?;
    let more = rows.len() as u64 > size;
    rows.truncate(size as usize);
    Ok(Keyset { rows, more })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_cursor_comes_from_the_last_row_only_when_more_follow() {
        let page = Keyset {
            rows: vec![1, 2, 3],
            more: true,
        };
        assert_eq!(page.next(|r| r * 10), Some(30));
        let last = Keyset {
            rows: vec![1, 2],
            more: false,
        };
        assert_eq!(last.next(|r| r * 10), None);
        let empty: Keyset<i32> = Keyset {
            rows: vec![],
            more: true,
        };
        assert_eq!(empty.next(|r| *r), None);
    }
}
