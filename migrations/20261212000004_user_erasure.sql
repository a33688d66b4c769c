-- Erasure of a person (`POST /users/{id}/erasure`): the account stays, so that what they wrote and
-- did keeps an author, under the pseudonym "Former member #<erasure_number>" (numbered within
-- the enterprise); everything that identified them is removed (store::users::erase).
alter table users
    add column erased_at timestamptz,
    add column erasure_number integer;
